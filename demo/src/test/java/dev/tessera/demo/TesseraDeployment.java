package dev.tessera.demo;

import java.io.IOException;

/**
 * How Tessera runs on the test cluster's node: installed with the Helm chart ({@link
 * TesseraRelease}, what users do, and what the E2E tier runs by default) or as host processes
 * ({@link TesseraProcesses}: quicker, for developers' loops and for tests that stop and start the
 * plugin or the controller themselves). {@code -Dtessera.e2e.deploy=host} (or {@code
 * TESSERA_E2E_DEPLOY=host}) runs the scenario tests on host processes.
 */
sealed interface TesseraDeployment extends AutoCloseable permits TesseraRelease, TesseraProcesses {

  /** The two ways. */
  enum Kind {
    HELM,
    HOST;

    /** The way the scenario tests use: Helm unless asked for host processes. */
    static Kind chosen() {
      String asked = System.getProperty("tessera.e2e.deploy", "");
      if (asked.isBlank()) {
        asked = System.getenv().getOrDefault("TESSERA_E2E_DEPLOY", "");
      }
      if (asked.isBlank()) {
        return HELM;
      }
      return switch (asked.strip()) {
        case "helm" -> HELM;
        case "host" -> HOST;
        default ->
            throw new IllegalArgumentException(
                "tessera.e2e.deploy must be helm or host, not \"" + asked + "\"");
      };
    }
  }

  /** Where the node plugin's Lease lives. */
  String leaseNamespace();

  /** What the (leading) controller's {@code /metrics} serves now. */
  String controllerMetrics() throws IOException, InterruptedException;

  /**
   * What the node plugin's {@code /prometheus} serves now (the newest plugin's, where a rolling
   * upgrade runs two), on the port it announced in its log ({@link PluginMetrics}).
   */
  String pluginMetrics() throws IOException, InterruptedException;

  /** The last {@code lines} lines of the node plugin's and the controller's logs, headed. */
  String logs(int lines) throws IOException;

  @Override
  void close() throws Exception;
}
