package dev.tessera.plugin.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The metrics server over a real socket, as Prometheus and the kubelet's readiness probe call it:
 * what the chart's probe and the E2E tier read (the answers Micronaut's endpoints gave before).
 */
class MetricsServerIT {
  private static final String SCRAPE =
      "# HELP tessera_claims_prepared x\ntessera_claims_prepared 2.0\n";

  @Test
  void servesPrometheusTextAndHealthOnAFreePort() throws Exception {
    try (var server = MetricsServer.start(-1, () -> SCRAPE);
        var http = HttpClient.newHttpClient()) {
      assertThat(server.port()).isPositive();

      var metrics = get(http, server, "/prometheus");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(metrics.body()).isEqualTo(SCRAPE);

      for (String path : new String[] {"/health", "/health/liveness", "/health/readiness"}) {
        var health = get(http, server, path);
        assertThat(health.statusCode()).as(path).isEqualTo(200);
        assertThat(health.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
      }
    }
  }

  @Test
  void answersOnlyGetOnItsOwnPaths() throws Exception {
    try (var server = MetricsServer.start(-1, () -> SCRAPE);
        var http = HttpClient.newHttpClient()) {
      assertThat(get(http, server, "/").statusCode()).isEqualTo(404);
      assertThat(get(http, server, "/prometheusx").statusCode()).isEqualTo(404);
      assertThat(get(http, server, "/healthz").statusCode()).isEqualTo(404);
      var post =
          http.send(
              HttpRequest.newBuilder(url(server, "/prometheus"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  private static HttpResponse<String> get(HttpClient http, MetricsServer server, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(url(server, path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI url(MetricsServer server, String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }
}
