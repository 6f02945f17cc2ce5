package dev.tessera.cli;

import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cli.core.Snapshot;
import dev.tessera.cli.kube.ApiServerSnapshot;
import dev.tessera.cli.nodes.NodeRows;
import dev.tessera.cli.nodes.TableText;
import dev.tessera.cli.why.Why;
import dev.tessera.cli.why.WhyText;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
    try (KubernetesClient client = client(args)) {
      long connected = System.nanoTime();
      Snapshot snapshot = new ApiServerSnapshot(client).read(args.driver());
      long read = System.nanoTime();
      int status =
          switch (args.command()) {
            case "nodes" -> {
              out.print(TableText.render(NodeRows.of(snapshot, args.all())));
              yield 0;
            }
            default -> why(args, client, snapshot, out, err);
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
      Args args, KubernetesClient client, Snapshot snapshot, PrintStream out, PrintStream err) {
    String namespace = args.namespace().orElseGet(() -> namespaceOf(client));
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
    out.print(WhyText.render(new Why(snapshot, new DeviceSelectors()).explain(claim)));
    return 0;
  }

  private static String namespaceOf(KubernetesClient client) {
    String namespace = client.getConfiguration().getNamespace();
    return namespace == null || namespace.isEmpty() ? "default" : namespace;
  }

  private static KubernetesClient client(Args args) {
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
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
