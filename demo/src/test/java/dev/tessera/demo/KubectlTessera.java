package dev.tessera.demo;

import dev.tessera.plugin.it.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kubectl plugin as a user installs it: {@code hack/install-kubectl-tessera} into a temp prefix
 * (building the jar only when {@code cli/target/kubectl-tessera.jar} is missing), run against the
 * cluster's admin kubeconfig. Closing it deletes the prefix, so no run leaves an install behind.
 */
final class KubectlTessera implements AutoCloseable {
  private static final Path REPO = TesseraOnNode.repoFile(".");
  private final Path prefix;
  private final Path kubeconfig;

  private KubectlTessera(Path prefix, Path kubeconfig) {
    this.prefix = prefix;
    this.kubeconfig = kubeconfig;
  }

  static KubectlTessera install(Cluster cluster) throws Exception {
    Path prefix = Files.createTempDirectory("kubectl-tessera-e2e");
    try {
      var command =
          new ArrayList<>(List.of(REPO.resolve("hack/install-kubectl-tessera").toString()));
      command.addAll(List.of("--prefix", prefix.toString()));
      if (Files.exists(REPO.resolve("cli/target/kubectl-tessera.jar"))) {
        command.add("--no-build");
      }
      Process install = new ProcessBuilder(command).directory(REPO.toFile()).inheritIO().start();
      if (!install.waitFor(10, TimeUnit.MINUTES) || install.exitValue() != 0) {
        install.destroyForcibly().waitFor();
        throw new IllegalStateException("hack/install-kubectl-tessera failed");
      }
      return new KubectlTessera(prefix, cluster.adminKubeconfig());
    } catch (Exception | Error e) {
      try {
        TestFiles.deleteTree(prefix);
      } catch (IOException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
  }

  /** Deletes the install prefix. */
  @Override
  public void close() throws IOException {
    TestFiles.deleteTree(prefix);
  }

  /** What {@code kubectl tessera ARGS} prints (stdout and stderr); fails on a non-zero exit. */
  String run(String... args) throws IOException, InterruptedException {
    var command = new ArrayList<>(List.of(prefix.resolve("bin/kubectl-tessera").toString()));
    command.addAll(List.of(args));
    var builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    Process p = builder.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("kubectl tessera " + String.join(" ", args) + ":\n" + out);
    }
    System.out.printf("--- kubectl tessera %s%n%s", String.join(" ", args), out);
    return out;
  }
}
