package dev.tessera.cli;

import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cli.core.Snapshot;
import dev.tessera.cli.kube.ApiServerSnapshot;
import dev.tessera.cli.kube.Decoding;
import dev.tessera.cli.nodes.NodeRows;
import dev.tessera.cli.nodes.TableText;
import dev.tessera.cli.why.Why;
import dev.tessera.cli.why.WhyText;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/** {@code kubectl-tessera}: parses the line, reads the cluster once, prints the answer. */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    Args args;
    try {
      args = Args.parse(argv);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.print(Args.USAGE);
      return 2;
    }
    if (args.command().equals("help")) {
      out.print(Args.USAGE);
      return 0;
    }
    if (args.command().equals("train")) {
      try {
        return Training.run(out);
      } catch (Exception e) {
        err.println("error: training: " + e);
        return 1;
      }
    }
    long start = System.nanoTime();
    // One thread on the second core warms what the call needs while this one reads the kubeconfig
    // and waits for the TLS handshake: Jackson's deserializers for the lists first (they are needed
    // first), then, for why, CEL's environment (a fifth of a call to build and warm).
    var decoding = new Decoding();
    var selectors = new CompletableFuture<DeviceSelectors>();
    boolean why = args.command().equals("why");
    Threads.start(
        "warm-up",
        () -> {
          decoding.warmUp();
          if (why) {
            selectors.complete(WarmSelectors.build());
          }
        });
    Config config;
    try {
      config = config(args);
    } catch (KubernetesClientException e) {
      err.println("error: the kubeconfig: " + e.getMessage());
      return 1;
    }
    try (ApiServerSnapshot cluster = new ApiServerSnapshot(config, decoding)) {
      long connected = System.nanoTime();
      Snapshot snapshot = cluster.read(args.driver());
      long read = System.nanoTime();
      int status =
          switch (args.command()) {
            case "nodes" -> {
              out.print(TableText.render(NodeRows.of(snapshot, args.all())));
              yield 0;
            }
            default -> why(args, config, snapshot, selectors.join(), out, err);
          };
      if (System.getenv("KUBECTL_TESSERA_TIMING") != null) {
        // Where a call's time goes, for hack/bench-kubectl-tessera: before main is the JVM's.
        err.printf(
            "timing: jvm %d ms, client %d ms, read %d ms, answer %d ms%n",
            java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()
                - (System.nanoTime() - start) / 1_000_000,
            (connected - start) / 1_000_000,
            (read - connected) / 1_000_000,
            (System.nanoTime() - read) / 1_000_000);
      }
      return status;
    } catch (KubernetesClientException e) {
      err.println("error: the API server: " + e.getMessage());
      return 1;
    }
  }

  private static int why(
      Args args,
      Config config,
      Snapshot snapshot,
      DeviceSelectors selectors,
      PrintStream out,
      PrintStream err) {
    String namespace = args.namespace().orElseGet(() -> namespaceOf(config));
    String name = args.claim().orElseThrow();
    ResourceClaim claim =
        snapshot.claims().stream()
            .filter(c -> c.getMetadata().getNamespace().equals(namespace))
            .filter(c -> c.getMetadata().getName().equals(name))
            .findFirst()
            .orElse(null);
    if (claim == null) {
      err.printf("error: no ResourceClaim %s in namespace %s%n", name, namespace);
      return 1;
    }
    out.print(WhyText.render(new Why(snapshot, selectors).explain(claim)));
    return 0;
  }

  private static String namespaceOf(Config config) {
    String namespace = config.getNamespace();
    return namespace == null || namespace.isEmpty() ? "default" : namespace;
  }

  private static Config config(Args args) {
    Config config;
    String context = args.context().orElse(null);
    if (args.kubeconfig().isPresent()) {
      try {
        config =
            Config.fromKubeconfig(
                context,
                Files.readString(Path.of(args.kubeconfig().get())),
                args.kubeconfig().get());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read kubeconfig " + args.kubeconfig().get(), e);
      }
    } else {
      config = Config.autoConfigure(context);
    }
    config.setUserAgent("kubectl-tessera");
    return config;
  }
}
