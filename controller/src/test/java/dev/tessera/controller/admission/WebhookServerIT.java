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

  private static String reviewOf(String kind, String object) {
    return """
        {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
         "request": {"uid": "u-2", "kind": {"group": "resource.k8s.io", "version": "v1",
           "kind": "%s"}, "operation": "CREATE", "name": "x", "object": %s}}"""
        .formatted(kind, object);
  }

  private static final String TYPO =
      "device.attributes['gpu.tessera.dev'].prodcutName == 'NVIDIA H100 80GB HBM3'";
  private static final String MEMORY_AS_INT = "device.capacity['gpu.tessera.dev'].memory >= 40";
  private static final String VERSION_AS_STRING =
      "device.attributes['gpu.tessera.dev'].driverVersion >= '580'";

  private static String requests(String selector) {
    return """
        {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName":
          "gpu.tessera.dev", "selectors": [{"cel": {"expression": "%s"}}]}}]}}"""
        .formatted(selector);
  }

  @Test
  void aClaimsMistypedSelectorIsAdmittedWithAWarningNamingTheNearestName() throws Exception {
    HttpResponse<String> response =
        post(reviewOf("ResourceClaim", "{\"spec\": " + requests(TYPO) + "}"));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body())
        .contains("\"uid\":\"u-2\"", "\"allowed\":true")
        .contains(
            "\"warnings\":[\"spec.devices.requests[0].exactly.selectors[0].cel.expression:"
                + " gpu.tessera.dev publishes no attribute \\\"prodcutName\\\"; did you mean"
                + " \\\"productName\\\"?\"]");
  }

  @Test
  void aTemplatesMemoryComparedWithANumberIsAdmittedWithAWarning() throws Exception {
    HttpResponse<String> response =
        post(
            reviewOf(
                "ResourceClaimTemplate",
                "{\"spec\": {\"spec\": " + requests(MEMORY_AS_INT) + "}}"));
    assertThat(response.body())
        .contains("\"allowed\":true")
        .contains(
            "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: capacity"
                + " \\\"memory\\\" of gpu.tessera.dev is a quantity: compare it with"
                + " quantity(\\\"40Gi\\\")");
  }

  @Test
  void aDeviceClasssVersionComparedWithAStringIsAdmittedWithAWarning() throws Exception {
    HttpResponse<String> response =
        post(
            reviewOf(
                "DeviceClass",
                """
                {"spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.tessera.dev'"}},
                  {"cel": {"expression": "%s"}}]}}"""
                    .formatted(VERSION_AS_STRING)));
    assertThat(response.body())
        .contains("\"allowed\":true")
        .contains(
            "spec.selectors[1].cel.expression: attribute \\\"driverVersion\\\" of"
                + " gpu.tessera.dev is a version: compare it with semver(")
        .doesNotContain("spec.selectors[0]");
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
