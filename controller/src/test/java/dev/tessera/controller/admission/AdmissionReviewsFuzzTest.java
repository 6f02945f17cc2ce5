package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tessera.api.fuzz.Fuzz;
import dev.tessera.api.fuzz.JsonTrees;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Any opaque parameters the API server lets through (a JSON object of up to 10 KiB, nested as deep
 * as that allows, numbers of any length) reach the webhook as the bytes of an AdmissionReview: it
 * answers a review that admits the claim or denies it naming a field under the parameters' path,
 * never a 400 (which the webhook's {@code failurePolicy: Ignore} would turn into an admission) nor
 * an exception.
 */
class AdmissionReviewsFuzzTest {
  /** {@code resource.k8s.io}'s limit on one opaque config's parameters. */
  private static final int PARAMETERS_MAX = 10 * 1024;

  private static final String OURS = "gpu.tessera.dev";
  private static final String PATH = "spec.devices.config[0].opaque.parameters";
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final JsonTrees TREES =
      new JsonTrees(
          List.of(
              "apiVersion",
              "kind",
              "sharing",
              "strategy",
              "mpsConfig",
              "defaultActiveThreadPercentage",
              "defaultPinnedDeviceMemoryLimit",
              "gpu.tessera.dev/v1alpha1",
              "GpuConfig",
              "MigDeviceConfig",
              "MPS"));
  private static final List<Object> VALID =
      List.of(
          Map.of(
              "apiVersion",
              "gpu.tessera.dev/v1alpha1",
              "kind",
              "GpuConfig",
              "sharing",
              Map.of("strategy", "MPS", "mpsConfig", Map.of("defaultActiveThreadPercentage", 50))),
          Map.of("apiVersion", "gpu.tessera.dev/v1alpha1", "kind", "MigDeviceConfig"));

  private final AdmissionReviews reviews = AdmissionReviews.of(OURS, JSON);

  @Test
  void anyParametersAreAdmittedOrDeniedByField() {
    Fuzz.check("webhook, any parameters", this::parameters, this::admittedOrDeniedByField);
  }

  @Test
  void parametersNestedAsDeepAsTenKibAllowAreDeniedByField() throws InterruptedException {
    String deep =
        "{\"apiVersion\":\"gpu.tessera.dev/v1alpha1\",\"kind\":\"GpuConfig\",\"sharing\":"
            + "[".repeat(5000)
            + "]".repeat(5000)
            + "}";
    assertThat(deep.length()).isLessThanOrEqualTo(PARAMETERS_MAX);
    // On a virtual thread, as the webhook server reads reviews: its stack holds the depth too.
    var message = new java.util.concurrent.atomic.AtomicReference<String>();
    Thread.ofVirtual().start(() -> message.set(denial(deep))).join();
    assertThat(message.get()).contains(PATH + ".sharing: must be an object, got array");
  }

  @Test
  void aNumberOfTenThousandDigitsIsDeniedByField() {
    String number =
        "{\"apiVersion\":\"gpu.tessera.dev/v1alpha1\",\"kind\":\"GpuConfig\",\"sharing\":"
            + "{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":"
            + "7".repeat(10_000)
            + "}}}";
    assertThat(denial(number))
        .contains(PATH + ".sharing.mpsConfig.defaultActiveThreadPercentage: must be");
  }

  /** Parameters as JSON text, of up to {@value #PARAMETERS_MAX} bytes. */
  private String parameters(Random r) {
    String text =
        switch (r.nextInt(4)) {
          case 0 -> JSON.writeValueAsString(TREES.tree(r, 5));
          case 1 -> JSON.writeValueAsString(TREES.mutationOf(VALID, r));
          case 2 -> withField(r, nesting(r));
          default -> withField(r, number(r));
        };
    return text.length() <= PARAMETERS_MAX ? text : "{}";
  }

  /**
   * A config with {@code value} as one of its fields, known or not, at the top or in its MPS
   * settings (a field named twice is read as its last value, as the API server keeps it).
   */
  private static String withField(Random r, String value) {
    String field =
        r.nextBoolean()
            ? List.of("sharing", "apiVersion", "kind", "unknown").get(r.nextInt(4)) + "\":" + value
            : "sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\""
                + List.of("defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit", "y")
                    .get(r.nextInt(3))
                + "\":"
                + value
                + "}}";
    return "{\"apiVersion\":\"gpu.tessera.dev/v1alpha1\",\"kind\":\"GpuConfig\",\"" + field + "}";
  }

  /** Arrays or objects nested 1 to 5,000 deep, empty at the bottom or not. */
  private static String nesting(Random r) {
    int depth = 1 + r.nextInt(r.nextBoolean() ? 5000 : 1800);
    if (r.nextBoolean() && depth <= 1800) {
      return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }
    return "[".repeat(depth) + (r.nextBoolean() ? "" : "\"x\"") + "]".repeat(depth);
  }

  /** An integer, fraction or exponent of 1 to 10,000 digits. */
  private static String number(Random r) {
    var s = new StringBuilder();
    if (r.nextBoolean()) {
      s.append('-');
    }
    s.append(1 + r.nextInt(9));
    int digits = r.nextInt(r.nextBoolean() ? 10_000 : 1200);
    for (int i = 0; i < digits; i++) {
      s.append((char) ('0' + r.nextInt(10)));
    }
    switch (r.nextInt(3)) {
      case 0 -> s.append('.').append("5".repeat(1 + r.nextInt(3000)));
      case 1 -> s.append('e').append(r.nextInt());
      default -> {}
    }
    return s.toString();
  }

  private void admittedOrDeniedByField(String parameters) {
    JsonNode response =
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> response(parameters));
    if (!response.get("allowed").asBoolean()) {
      assertThat(response.get("status").get("message").asString()).contains(PATH);
    }
  }

  private String denial(String parameters) {
    JsonNode response = response(parameters);
    assertThat(response.get("allowed").asBoolean()).isFalse();
    return response.get("status").get("message").asString();
  }

  private JsonNode response(String parameters) {
    String review =
        """
        {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
         "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
           "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
           "namespace": "default", "name": "c", "operation": "CREATE",
           "object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu",
               "exactly": {"deviceClassName": "gpu.tessera.dev"}}],
               "config": [{"opaque": {"driver": "%s", "parameters": %s}}]}}}}}"""
            .formatted(OURS, parameters);
    WebhookReply reply = reviews.review(review.getBytes(StandardCharsets.UTF_8));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode response = JSON.readTree(reply.body()).get("response");
    assertThat(response.get("uid").asString()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
    return response;
  }
}
