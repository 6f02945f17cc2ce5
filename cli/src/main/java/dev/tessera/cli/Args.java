package dev.tessera.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The command line, parsed by hand: two subcommands and a few flags do not need a library, and each
 * class a library loads is start-up time a user waits for on every call.
 *
 * @param command {@code nodes}, {@code why}, {@code help}, or {@code train} (the install's, not a
 *     user's: see {@link Training})
 * @param claim the claim {@code why} explains
 */
record Args(
    String command,
    Optional<String> claim,
    Optional<String> namespace,
    Optional<String> context,
    Optional<String> kubeconfig,
    String driver,
    boolean all) {
  static final String USAGE =
      """
      kubectl tessera: what Tessera's GPUs hold, and why a claim is pending.

      Usage:
        kubectl tessera nodes [--all]            every node's devices: type, profile, memory,
                                                 health, taints, the claims and pods holding them
                                                 (--all: also mig-dynamic placements no claim holds)
        kubectl tessera why CLAIM [-n NAMESPACE]  per node, why the claim's requests cannot be met;
                                                 for an allocated claim, the devices it got

      Flags:
        -n, --namespace NS    the claim's namespace (default: the context's, else "default")
            --context NAME    the kubeconfig context
            --kubeconfig FILE the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
            --driver NAME     the DRA driver (default: gpu.tessera.dev)
        -h, --help            this help
      """;

  static Args parse(String[] argv) {
    var positional = new ArrayList<String>();
    String namespace = null;
    String context = null;
    String kubeconfig = null;
    String driver = "gpu.tessera.dev";
    boolean all = false;
    boolean help = false;
    for (int i = 0; i < argv.length; i++) {
      String arg = argv[i];
      String inline = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : null;
      String flag = inline == null ? arg : arg.substring(0, arg.indexOf('='));
      switch (flag) {
        case "-n", "--namespace" -> namespace = inline != null ? inline : value(argv, ++i, flag);
        case "--context" -> context = inline != null ? inline : value(argv, ++i, flag);
        case "--kubeconfig" -> kubeconfig = inline != null ? inline : value(argv, ++i, flag);
        case "--driver" -> driver = inline != null ? inline : value(argv, ++i, flag);
        case "--all", "-A" -> all = true;
        case "-h", "--help" -> help = true;
        default -> {
          if (arg.startsWith("-")) {
            throw new IllegalArgumentException("unknown flag " + arg);
          }
          positional.add(arg);
        }
      }
    }
    String command = help || positional.isEmpty() ? "help" : positional.getFirst();
    if (!List.of("nodes", "why", "help", "train").contains(command)) {
      throw new IllegalArgumentException("unknown command " + command);
    }
    Optional<String> claim =
        positional.size() > 1 ? Optional.of(positional.get(1)) : Optional.empty();
    if (command.equals("why") && claim.isEmpty()) {
      throw new IllegalArgumentException("why needs a claim: kubectl tessera why CLAIM [-n NS]");
    }
    return new Args(
        command,
        claim,
        Optional.ofNullable(namespace),
        Optional.ofNullable(context),
        Optional.ofNullable(kubeconfig),
        driver,
        all);
  }

  private static String value(String[] argv, int i, String flag) {
    if (i >= argv.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return argv[i];
  }
}
