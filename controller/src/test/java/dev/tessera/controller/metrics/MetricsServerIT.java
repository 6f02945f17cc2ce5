package dev.tessera.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The metrics endpoint over real HTTP on loopback. */
class MetricsServerIT {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(int port, String path, String method) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesTheRegistryInPrometheusTextFormatAndAHealthCheck() throws Exception {
    var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.counter("tessera.controller.slice.writes", "operation", "create").increment(3);
    try (var server = MetricsServer.start(0, registry)) {
      var metrics = get(server.port(), "/metrics", "GET");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      assertThat(metrics.body())
          .contains("tessera_controller_slice_writes_total{operation=\"create\"} 3.0");

      assertThat(get(server.port(), "/healthz", "GET").body()).isEqualTo("ok\n");
      assertThat(get(server.port(), "/metrics", "POST").statusCode()).isEqualTo(405);
    }
  }

  @Test
  void aNegativePortServesNothing() {
    try (var server = MetricsServer.disabled()) {
      assertThat(server.port()).isEqualTo(-1);
    }
  }
}
