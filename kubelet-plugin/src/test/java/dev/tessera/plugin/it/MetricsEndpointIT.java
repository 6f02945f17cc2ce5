package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin as its own process, configured by env vars as the DaemonSet does, on a random metrics
 * port ({@code TESSERA_METRICS_PORT=-1}, as the E2E tier installs it): its log names the port it
 * bound, and {@code /prometheus} there serves the GPU series at the period {@code
 * TESSERA_METRICS_PERIOD} sets, and {@code /health} answers the chart's readiness probe. This is
 * how the E2E tier finds the plugin's metrics. SIGTERM closes the application context (the sockets
 * go) before the process exits.
 */
class MetricsEndpointIT {
  private static final Pattern ANNOUNCED = Pattern.compile("serving metrics .*port=\"?(\\d+)");

  @TempDir Path dir;

  @Test
  void theLogNamesTheRandomPortAndPrometheusServesTheGpuSeriesThere() throws Exception {
    assertThat(KillablePlugin.JAR).as("the shaded plugin jar (built at package)").exists();
    Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 1);
    try (var api = new MockApiServer()) {
      var env = PluginProcess.nodeEnv(dir, root, api.writeKubeconfig(dir));
      env.put("TESSERA_METRICS_PERIOD", "300ms");
      try (var plugin = PluginProcess.start(KillablePlugin.JAR, dir.resolve("node"), "", env)) {
        int[] port = {-1};
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> {
                  Matcher m = ANNOUNCED.matcher(Files.readString(plugin.log()));
                  if (m.find()) {
                    port[0] = Integer.parseInt(m.group(1));
                  }
                  return port[0] > 0;
                });
        Files.writeString(root.resolve("var/lib/mock-nvml/telemetry"), "0 power_mw 123000\n");

        var url = URI.create("http://127.0.0.1:" + port[0] + "/prometheus");
        try (HttpClient http = HttpClient.newHttpClient()) {
          await()
              .atMost(Duration.ofSeconds(20))
              .ignoreExceptions()
              .untilAsserted(
                  () ->
                      assertThat(
                              http.send(
                                      HttpRequest.newBuilder(url).build(),
                                      HttpResponse.BodyHandlers.ofString())
                                  .body())
                          .containsPattern(
                              "tessera_gpu_power_watts\\{claim_name=\"\",.*device=\"gpu-0\",.*\\} 123\\.0"));
          // The chart's readiness probe.
          var health =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port[0] + "/health"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          assertThat(health.statusCode()).isEqualTo(200);
          assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
        }
        assertThat(plugin.registrationSocket()).exists();
        // SIGTERM, as the kubelet stops the pod: the shutdown hook closes the context, which
        // takes the kubelet's sockets away before the process ends.
        plugin.close();
        assertThat(plugin.registrationSocket()).doesNotExist();
        assertThat(Files.readString(plugin.log())).contains("stopped serving the kubelet");
      }
    }
  }
}
