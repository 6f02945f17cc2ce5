package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The local cluster's own processes, stopped and started again as an outage would
 * (hack/cluster/component), and the kubelet's pod logs read from the host while the API server
 * cannot serve them.
 */
final class ClusterComponents {
  private final Path state;

  /** What this stopped and has not started again. */
  private final Set<String> stopped = new LinkedHashSet<>();

  ClusterComponents(Path state) {
    this.state = state;
  }

  /** SIGTERM, then SIGKILL after 30 s; returns once it has exited. */
  void stop(String component) throws IOException, InterruptedException {
    stopped.add(component); // before: a stop that fails half-way may have stopped it
    run("stop", component);
  }

  /** Started again with its recorded command line; the API server: once it is ready. */
  void start(String component) throws IOException, InterruptedException {
    run("start", component);
    stopped.remove(component);
  }

  /**
   * An outage test's clean-up: starts again whatever this stopped and did not start (the test
   * failed during its outage), then closes {@code tessera} (null: none was started), whose
   * tear-down needs the API server, even when a start failed.
   */
  void startStoppedThenClose(AutoCloseable tessera) throws Exception {
    try {
      for (String component : List.copyOf(stopped)) {
        start(component);
      }
    } finally {
      if (tessera != null) {
        tessera.close();
      }
    }
  }

  private void run(String action, String component) throws IOException, InterruptedException {
    var builder =
        new ProcessBuilder(
            TesseraOnNode.repoFile("hack/cluster/component").toString(), action, component);
    builder.environment().put("TESSERA_CLUSTER_DIR", state.toString());
    Process process = ProcessOutput.start(builder);
    assertThat(process.waitFor(90, TimeUnit.SECONDS))
        .as("hack/cluster/component " + action + " " + component + " finished")
        .isTrue();
    assertThat(process.exitValue())
        .as("hack/cluster/component " + action + " " + component + "'s exit code")
        .isZero();
  }

  /**
   * Everything the kubelet logged for the containers of pods whose name starts with {@code pod}.
   */
  String podLog(String namespace, String pod) throws IOException {
    var text = new StringBuilder();
    try (Stream<Path> files = Files.walk(state.resolve("pod-logs"))) {
      for (Path file :
          files
              .filter(Files::isRegularFile)
              .filter(f -> f.toString().contains("/" + namespace + "_" + pod))
              .sorted()
              .toList()) {
        text.append(Files.readString(file));
      }
    }
    return text.toString();
  }
}
