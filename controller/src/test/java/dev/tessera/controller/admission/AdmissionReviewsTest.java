package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class AdmissionReviewsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String OURS = "gpu.tessera.dev";
  private final AdmissionReviews reviews = AdmissionReviews.of(OURS, JSON);

  /** A GpuConfig with the given sharing, as a claim author writes it. */
  private static String gpuConfig(String sharing) {
    return """
        {"apiVersion": "gpu.tessera.dev/v1alpha1", "kind": "GpuConfig", "sharing": %s}"""
        .formatted(sharing);
  }

  private static String configs(String driver, String parameters) {
    return """
        [{"requests": ["gpu"], "opaque": {"driver": "%s", "parameters": %s}}]"""
        .formatted(driver, parameters);
  }

  private static String claim(String configs) {
    return """
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "c", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "gpu",
           "exactly": {"deviceClassName": "gpu.tessera.dev"}}], "config": %s}}}"""
        .formatted(configs);
  }

  private static String template(String configs) {
    return """
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "t", "namespace": "default"},
         "spec": {"spec": {"devices": {"config": %s}}}}"""
        .formatted(configs);
  }

  private static String deviceClass(String configs) {
    return """
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "d"},
         "spec": {"selectors": [], "config": %s}}"""
        .formatted(configs);
  }

  private static String review(String kind, String object) {
    return """
        {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
         "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
           "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "%s"},
           "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "x"},
           "namespace": "default", "name": "x", "operation": "CREATE", "object": %s}}"""
        .formatted(kind, object);
  }

  private JsonNode response(String review) {
    WebhookReply reply = reviews.review(review.getBytes(StandardCharsets.UTF_8));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode answer = JSON.readTree(reply.body());
    assertThat(answer.get("apiVersion").asString()).isEqualTo("admission.k8s.io/v1");
    assertThat(answer.get("kind").asString()).isEqualTo("AdmissionReview");
    JsonNode response = answer.get("response");
    assertThat(response.get("uid").asString()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
    return response;
  }

  private String denial(String review) {
    JsonNode response = response(review);
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.get("status").get("code").asInt()).isEqualTo(422);
    assertThat(response.get("status").get("reason").asString()).isEqualTo("Invalid");
    return response.get("status").get("message").asString();
  }

  private void assertAllowed(String review) {
    JsonNode response = response(review);
    assertThat(response.get("allowed").asBoolean()).isTrue();
    assertThat(response.has("status")).isFalse();
  }

  @Test
  void anUnknownStrategyIsRefusedNamingTheFieldAndTheAllowedValues() {
    String message =
        denial(
            review(
                "ResourceClaim",
                claim(configs(OURS, gpuConfig("{\"strategy\": \"Timeslicing\"}")))));
    assertThat(message)
        .contains(
            "spec.devices.config[0].opaque.parameters.sharing.strategy: unsupported value"
                + " \"Timeslicing\"; allowed: Exclusive, TimeSlicing, MPS");
  }

  @Test
  void everyErrorOfEveryConfigIsNamed() {
    String configs =
        """
        [{"opaque": {"driver": "gpu.tessera.dev", "parameters": {"apiVersion": "gpu.tessera.dev/v1alpha1",
           "kind": "GpuConfig"}}},
         {"opaque": {"driver": "gpu.tessera.dev", "parameters": {"apiVersion": "gpu.tessera.dev/v1",
           "kind": "GpuConfig", "sharin": {}}}},
         {"opaque": {"driver": "gpu.tessera.dev", "parameters": {"apiVersion": "gpu.tessera.dev/v1alpha1",
           "kind": "GpuConfig", "sharing": {"strategy": "MPS",
           "mpsConfig": {"defaultActiveThreadPercentage": 150}}}}}]""";
    String message = denial(review("ResourceClaim", claim(configs)));
    assertThat(message)
        .contains("spec.devices.config[1].opaque.parameters.apiVersion: unsupported value")
        .contains("spec.devices.config[1].opaque.parameters.sharin: unknown field")
        .contains(
            "spec.devices.config[2].opaque.parameters.sharing.mpsConfig"
                + ".defaultActiveThreadPercentage: must be between 1 and 100")
        .doesNotContain("config[0]");
  }

  @Test
  void aMissingParametersObjectIsRefused() {
    String configs = "[{\"opaque\": {\"driver\": \"gpu.tessera.dev\"}}]";
    assertThat(denial(review("ResourceClaim", claim(configs))))
        .contains("spec.devices.config[0].opaque.parameters: must be an object, got null");
  }

  @Test
  void validConfigsPass() {
    assertAllowed(
        review("ResourceClaim", claim(configs(OURS, gpuConfig("{\"strategy\": \"MPS\"}")))));
    assertAllowed(
        review(
            "ResourceClaim",
            claim(
                configs(
                    OURS,
                    gpuConfig(
                        "{\"strategy\": \"TimeSlicing\", \"timeSlicingConfig\": {\"interval\":"
                            + " \"Long\"}}")))));
  }

  @Test
  void objectsWithoutConfigsPass() {
    assertAllowed(
        review(
            "ResourceClaim",
            """
            {"metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "gpu",
              "exactly": {"deviceClassName": "gpu.tessera.dev"}}]}}}"""));
    assertAllowed(review("DeviceClass", "{\"metadata\": {\"name\": \"d\"}, \"spec\": {}}"));
  }

  @Test
  void otherDriversConfigsPassUntouched() {
    assertAllowed(
        review(
            "ResourceClaim",
            claim(
                configs("gpu.example.com", "{\"anything\": [1, 2], \"sharing\": \"whatever\"}"))));
  }

  @Test
  void aDriverConfiguredUnderAnotherNameJudgesOnlyThatName() {
    var renamed = AdmissionReviews.of("gpu.acme.io", JSON);
    String bad = claim(configs(OURS, "{\"kind\": \"Nonsense\"}"));
    assertThat(renamed.review(review("ResourceClaim", bad).getBytes(StandardCharsets.UTF_8)).body())
        .contains("\"allowed\":true");
    assertThat(
            renamed
                .review(
                    review(
                            "ResourceClaim",
                            claim(configs("gpu.acme.io", "{\"kind\": \"Nonsense\"}")))
                        .getBytes(StandardCharsets.UTF_8))
                .body())
        .contains("\"allowed\":false");
  }

  @Test
  void aTemplatesConfigsAreUnderSpecSpec() {
    String message =
        denial(
            review(
                "ResourceClaimTemplate",
                template(configs(OURS, gpuConfig("{\"strategy\": \"Shared\"}")))));
    assertThat(message)
        .contains(
            "spec.spec.devices.config[0].opaque.parameters.sharing.strategy: unsupported value"
                + " \"Shared\"; allowed: Exclusive, TimeSlicing, MPS");
  }

  @Test
  void aDeviceClasssConfigsAreUnderSpecConfig() {
    String message =
        denial(
            review(
                "DeviceClass",
                deviceClass(
                    configs(
                        OURS,
                        "{\"apiVersion\": \"gpu.tessera.dev/v1alpha1\", \"kind\": \"MigDeviceConfig\","
                            + " \"sharing\": {\"strategy\": \"TimeSlicing\", \"timeSlicingConfig\":"
                            + " {\"interval\": \"Short\"}}}"))));
    assertThat(message)
        .contains(
            "spec.config[0].opaque.parameters.sharing.timeSlicingConfig: not supported for MIG");
    assertAllowed(
        review("DeviceClass", deviceClass(configs(OURS, gpuConfig("{\"strategy\": \"MPS\"}")))));
  }

  @Test
  void aDeleteHasNoObjectAndPasses() {
    assertAllowed(review("ResourceClaim", "null"));
  }

  @Test
  void kindsWithoutDeviceConfigsPass() {
    assertAllowed(review("Pod", "{\"spec\": {\"config\": 3}}"));
  }

  @Test
  void aConfigListOfTheWrongShapeIsRefusedNotCrashedOn() {
    assertThat(denial(review("ResourceClaim", "{\"spec\": {\"devices\": {\"config\": {}}}}")))
        .contains("spec.devices.config: must be an array");
    assertThat(denial(review("ResourceClaim", "{\"spec\": {\"devices\": 7}}")))
        .contains("spec.devices: must be an object");
    assertAllowed(review("ResourceClaim", "{\"spec\": {\"devices\": {\"config\": [7, null]}}}"));
  }

  @Test
  void aMalformedReviewIsABadRequestWithTheReason() {
    Map<String, String> bodies =
        Map.of(
            "{not json",
            "malformed AdmissionReview",
            "[]",
            "expected an admission.k8s.io/v1 AdmissionReview",
            "{\"apiVersion\": \"admission.k8s.io/v1beta1\", \"kind\": \"AdmissionReview\"}",
            "expected an admission.k8s.io/v1 AdmissionReview",
            "{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\"}",
            "no request.uid",
            "{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\","
                + " \"request\": {\"uid\": 5}}",
            "no request.uid",
            "",
            "malformed AdmissionReview");
    bodies.forEach(
        (body, reason) -> {
          WebhookReply reply = reviews.review(body.getBytes(StandardCharsets.UTF_8));
          assertThat(reply.status()).as(body).isEqualTo(400);
          assertThat(reply.contentType()).startsWith("text/plain");
          assertThat(reply.body()).as(body).contains(reason);
        });
  }

  /** A claim with an admin request "all" and a plain request "gpu", and these configs. */
  private static String adminClaim(String configs) {
    return """
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "watch", "namespace": "monitoring"},
         "spec": {"devices": {"requests": [
           {"name": "all", "exactly": {"deviceClassName": "gpu.tessera.dev",
             "allocationMode": "All", "adminAccess": true}},
           {"name": "gpu", "exactly": {"deviceClassName": "gpu.tessera.dev"}}],
          "config": %s}}}"""
        .formatted(configs);
  }

  private static String configFor(String requests, String sharing) {
    return """
        [{"requests": %s, "opaque": {"driver": "gpu.tessera.dev", "parameters": %s}}]"""
        .formatted(requests, gpuConfig(sharing));
  }

  @Test
  void sharingForAnAdminRequestIsRefusedNamingTheField() {
    for (String sharing :
        List.of(
            "{\"strategy\": \"MPS\"}",
            "{\"strategy\": \"TimeSlicing\", \"timeSlicingConfig\": {\"interval\": \"Long\"}}")) {
      for (String requests : List.of("[\"all\"]", "[]")) {
        assertThat(denial(review("ResourceClaim", adminClaim(configFor(requests, sharing)))))
            .contains("spec.devices.config[0].opaque.parameters.sharing.strategy")
            .contains("request all has adminAccess");
      }
    }
    // Only the config that asks for sharing is named, beside an exclusive one.
    String two =
        """
        [{"requests": ["all"], "opaque": {"driver": "gpu.tessera.dev", "parameters": %s}},
         {"requests": ["all"], "opaque": {"driver": "gpu.tessera.dev", "parameters": %s}}]"""
            .formatted(
                gpuConfig("{\"strategy\": \"Exclusive\"}"), gpuConfig("{\"strategy\": \"MPS\"}"));
    assertThat(denial(review("ResourceClaim", adminClaim(two))))
        .contains("spec.devices.config[1].opaque.parameters.sharing.strategy")
        .doesNotContain("config[0]");
  }

  @Test
  void aTemplatesAdminRequestIsJudgedToo() {
    String template =
        """
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "t", "namespace": "monitoring"},
         "spec": {"spec": {"devices": {"requests": [{"name": "all", "exactly": {
           "deviceClassName": "gpu.tessera.dev", "allocationMode": "All", "adminAccess": true}}],
           "config": %s}}}}"""
            .formatted(configFor("[\"all\"]", "{\"strategy\": \"MPS\"}"));
    assertThat(denial(review("ResourceClaimTemplate", template)))
        .contains("spec.spec.devices.config[0].opaque.parameters.sharing.strategy");
  }

  @Test
  void exclusiveOrUnsetSharingForAnAdminRequestAndSharingForOthersPass() {
    assertAllowed(
        review(
            "ResourceClaim", adminClaim(configFor("[\"all\"]", "{\"strategy\": \"Exclusive\"}"))));
    assertAllowed(
        review(
            "ResourceClaim",
            adminClaim(
                """
                [{"requests": ["all"], "opaque": {"driver": "gpu.tessera.dev", "parameters":
                  {"apiVersion": "gpu.tessera.dev/v1alpha1", "kind": "GpuConfig"}}}]""")));
    assertAllowed(
        review("ResourceClaim", adminClaim(configFor("[\"gpu\"]", "{\"strategy\": \"MPS\"}"))));
    // adminAccess false is no admin access.
    assertAllowed(
        review(
            "ResourceClaim",
            adminClaim(configFor("[]", "{\"strategy\": \"MPS\"}"))
                .replace("\"adminAccess\": true", "\"adminAccess\": false")));
  }

  /** A claim with one request whose CEL selector is the given expression (JSON-escaped). */
  private static String claimSelecting(String expression, String configs) {
    return """
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "c", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "gpu",
           "exactly": {"deviceClassName": "gpu.tessera.dev",
             "selectors": [{"cel": {"expression": "%s"}}]}}], "config": %s}}}"""
        .formatted(expression, configs);
  }

  @Test
  void aMistypedSelectorIsAllowedWithAWarning() {
    JsonNode response =
        response(
            review(
                "ResourceClaim",
                claimSelecting("device.attributes['gpu.tessera.dev'].prodcutName == 'x'", "[]")));
    assertThat(response.get("allowed").asBoolean()).isTrue();
    assertThat(response.has("status")).isFalse();
    assertThat(response.get("warnings").valueStream().map(JsonNode::asString).toList())
        .containsExactly(
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: gpu.tessera.dev"
                + " publishes no attribute \"prodcutName\"; did you mean \"productName\"?");
  }

  @Test
  void aDenialCarriesTheWarningsToo() {
    JsonNode response =
        response(
            review(
                "ResourceClaim",
                claimSelecting(
                    "device.capacity['gpu.tessera.dev'].memory >= 1",
                    configs(OURS, gpuConfig("{\"strategy\": \"Timeslicing\"}")))));
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.get("warnings").get(0).asString())
        .startsWith(
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: capacity \"memory\""
                + " of gpu.tessera.dev is a quantity");
  }

  @Test
  void aGoodSelectorBringsNoWarnings() {
    JsonNode response =
        response(
            review(
                "ResourceClaim",
                claimSelecting("device.attributes['gpu.tessera.dev'].productName == 'x'", "[]")));
    assertThat(response.get("allowed").asBoolean()).isTrue();
    assertThat(response.has("warnings")).isFalse();
  }

  @Test
  void aDriverUnderAnotherNameLintsOnlyItsDomain() {
    var renamed = AdmissionReviews.of("gpu.acme.io", JSON);
    String typo = "device.attributes['gpu.tessera.dev'].prodcutName == 'x'";
    assertThat(
            renamed
                .review(
                    review("ResourceClaim", claimSelecting(typo, "[]"))
                        .getBytes(StandardCharsets.UTF_8))
                .body())
        .doesNotContain("warnings");
  }
}
