package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.FieldError;
import dev.tessera.controller.render.PublishedNames;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class SelectorAdmissionTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String D = "gpu.tessera.dev";
  private static final SelectorAdmission ADMISSION =
      new SelectorAdmission(new SelectorLint(D, PublishedNames.of(D)));
  private static final String TYPO = "device.attributes['gpu.tessera.dev'].prodcutName == 'x'";
  private static final String GOOD = "device.attributes['gpu.tessera.dev'].productName == 'x'";
  private static final String TYPO_WARNING =
      "gpu.tessera.dev publishes no attribute \"prodcutName\"; did you mean \"productName\"?";

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(String json) {
    return JSON.readValue(json, Map.class);
  }

  private static String selectors(String... expressions) {
    var list = new StringBuilder("[");
    for (String e : expressions) {
      if (list.length() > 1) {
        list.append(", ");
      }
      list.append("{\"cel\": {\"expression\": \"").append(e).append("\"}}");
    }
    return list.append("]").toString();
  }

  private static String devices() {
    return """
        {"requests": [
          {"name": "a", "exactly": {"deviceClassName": "gpu.tessera.dev", "selectors": %s}},
          {"name": "b", "firstAvailable": [
            {"name": "big", "deviceClassName": "gpu.tessera.dev", "selectors": %s},
            {"name": "small", "deviceClassName": "gpu.tessera.dev", "selectors": %s}]}]}"""
        .formatted(selectors(GOOD, TYPO), selectors(GOOD), selectors(TYPO));
  }

  @Test
  void aClaimsExactAndFirstAvailableSelectorsAreLintedWithTheirPaths() {
    List<FieldError> warnings =
        ADMISSION.warnings(
            "ResourceClaim", object("{\"spec\": {\"devices\": " + devices() + "}}"), null);
    assertThat(warnings)
        .containsExactly(
            new FieldError(
                "spec.devices.requests[0].exactly.selectors[1].cel.expression", TYPO_WARNING),
            new FieldError(
                "spec.devices.requests[1].firstAvailable[1].selectors[0].cel.expression",
                TYPO_WARNING));
  }

  @Test
  void aTemplatesSelectorsAreUnderSpecSpec() {
    assertThat(
            ADMISSION.warnings(
                "ResourceClaimTemplate",
                object("{\"spec\": {\"spec\": {\"devices\": " + devices() + "}}}"),
                null))
        .extracting(FieldError::field)
        .containsExactly(
            "spec.spec.devices.requests[0].exactly.selectors[1].cel.expression",
            "spec.spec.devices.requests[1].firstAvailable[1].selectors[0].cel.expression");
  }

  @Test
  void aDeviceClasssSelectorsAreUnderSpecSelectors() {
    assertThat(
            ADMISSION.warnings(
                "DeviceClass",
                object("{\"spec\": {\"selectors\": " + selectors(GOOD, TYPO) + "}}"),
                null))
        .containsExactly(new FieldError("spec.selectors[1].cel.expression", TYPO_WARNING));
  }

  @Test
  void anUpdateSpeaksOnlyOfNewSelectors() {
    var before = object("{\"spec\": {\"selectors\": " + selectors(TYPO) + "}}");
    var after =
        object(
            "{\"spec\": {\"selectors\": "
                + selectors(TYPO, TYPO.replace("== 'x'", "== 'y'"))
                + "}}");
    assertThat(ADMISSION.warnings("DeviceClass", after, before))
        .extracting(FieldError::field)
        .containsExactly("spec.selectors[1].cel.expression");
    assertThat(ADMISSION.warnings("DeviceClass", before, before)).isEmpty();
  }

  @Test
  void objectsWithoutSelectorsOrOfOtherKindsHaveNothing() {
    assertThat(ADMISSION.warnings("DeviceClass", object("{\"spec\": {}}"), null)).isEmpty();
    assertThat(ADMISSION.warnings("ResourceClaim", object("{\"spec\": {\"devices\": {}}}"), null))
        .isEmpty();
    assertThat(
            ADMISSION.warnings(
                "ResourceClaim",
                object(
                    "{\"spec\": {\"devices\": {\"requests\": [{\"name\": \"a\", \"exactly\":"
                        + " {\"selectors\": [{\"cel\": {}}, \"garbage\", {}]}}]}}}"),
                null))
        .isEmpty();
    assertThat(
            ADMISSION.warnings("Pod", object("{\"spec\": {\"devices\": " + devices() + "}}"), null))
        .isEmpty();
  }
}
