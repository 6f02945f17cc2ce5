package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The webhook over real HTTPS, with a certificate made for the test, as the API server calls it.
 */
class WebhookServerIT {
  private static Path dir;
  private static SelfSignedCert cert;
  private static WebhookServer server;
  private static HttpClient client;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("webhook-it");
    cert = SelfSignedCert.create(dir);
    server =
        new WebhookServer(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            PemTls.serverContext(cert.certFile(), cert.keyFile()),
            AdmissionReviews.of("gpu.tessera.dev", JsonMapper.builder().build()));
    server.start();
    client = HttpClient.newBuilder().sslContext(cert.clientContext()).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (client != null) {
      client.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static URI uri(String path) {
    return URI.create("https://127.0.0.1:" + server.port() + path);
  }

  private static HttpResponse<String> post(String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(WebhookServer.VALIDATE))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String review(String strategy) {
    return """
        {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
         "request": {"uid": "u-1", "kind": {"group": "resource.k8s.io", "version": "v1",
           "kind": "ResourceClaim"}, "operation": "CREATE", "namespace": "default", "name": "c",
           "object": {"spec": {"devices": {"config": [{"opaque": {"driver": "gpu.tessera.dev",
             "parameters": {"apiVersion": "gpu.tessera.dev/v1alpha1", "kind": "GpuConfig",
               "sharing": {"strategy": "%s"}}}}]}}}}}"""
        .formatted(strategy);
  }

  @Test
  void anInvalidClaimIsDeniedNamingTheField() throws Exception {
    HttpResponse<String> response = post(review("Timeslicing"));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.body())
        .contains("\"uid\":\"u-1\"", "\"allowed\":false")
        .contains("spec.devices.config[0].opaque.parameters.sharing.strategy")
        .contains("allowed: Exclusive, TimeSlicing, MPS");
  }

  @Test
  void aValidClaimIsAllowed() throws Exception {
    HttpResponse<String> response = post(review("TimeSlicing"));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("\"uid\":\"u-1\"", "\"allowed\":true");
  }

  @Test
  void garbageIsABadRequestAndTheServerStaysUp() throws Exception {
    HttpResponse<String> response = post("{\"apiVersion\": ");
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body()).contains("malformed AdmissionReview");
    assertThat(post(review("MPS")).statusCode()).isEqualTo(200);
  }

  @Test
  void onlyPostIsServed() throws Exception {
    var response =
        client.send(
            HttpRequest.newBuilder(uri(WebhookServer.VALIDATE)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(405);
  }

  @Test
  void healthz() throws Exception {
    var response =
        client.send(
            HttpRequest.newBuilder(uri(WebhookServer.HEALTHZ)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok\n");
  }

  @Test
  void aClientThatDoesNotTrustTheCertificateIsRefused() throws Exception {
    try (var untrusting = HttpClient.newHttpClient()) {
      Assertions.assertThatThrownBy(
              () ->
                  untrusting.send(
                      HttpRequest.newBuilder(uri(WebhookServer.HEALTHZ)).GET().build(),
                      HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(SSLHandshakeException.class);
    }
  }
}
