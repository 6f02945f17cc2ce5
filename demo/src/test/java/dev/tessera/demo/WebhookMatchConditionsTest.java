package dev.tessera.demo;

import static dev.tessera.demo.HelmChart.render;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The chart's webhook matchConditions, evaluated with CEL as the API server does before it calls
 * the webhook: objects with a Tessera config or a selector that names Tessera's domain are sent,
 * objects of other drivers are not.
 */
class WebhookMatchConditionsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Cel CEL =
      CelFactory.standardCelBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("object", MapType.create(SimpleType.STRING, SimpleType.DYN))
          .build();
  private static Map<String, String> conditions;

  @BeforeAll
  static void renderTheChart() throws Exception {
    conditions =
        render().stream()
            .filter(ValidatingWebhookConfiguration.class::isInstance)
            .map(ValidatingWebhookConfiguration.class::cast)
            .findFirst()
            .orElseThrow()
            .getWebhooks()
            .stream()
            .collect(
                Collectors.toMap(
                    ValidatingWebhook::getName,
                    w -> w.getMatchConditions().getFirst().getExpression()));
  }

  private static boolean sent(String webhook, String object) throws Exception {
    var ast = CEL.compile(conditions.get(webhook)).getAst();
    Object result =
        CEL.createProgram(ast).eval(Map.of("object", JSON.readValue(object, Map.class)));
    return (Boolean) result;
  }

  private static String devices(String selector, String driver) {
    return """
        {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "x",
          "selectors": [{"cel": {"expression": "%s"}}]}},
          {"name": "alt", "firstAvailable": [{"name": "a", "deviceClassName": "x"}]}],
         "config": [{"opaque": {"driver": "%s", "parameters": {}}}]}"""
        .formatted(selector, driver);
  }

  private static final String OURS = "device.attributes['gpu.tessera.dev'].prodcutName == 'x'";
  private static final String THEIRS = "device.attributes['dra.example.com'].model == 'x'";

  @Test
  void aClaimIsSentForATesseraConfigOrASelectorThatNamesTessera() throws Exception {
    String claim = "claims.gpu.tessera.dev";
    assertThat(sent(claim, "{\"spec\": {\"devices\": " + devices(OURS, "other") + "}}")).isTrue();
    assertThat(sent(claim, "{\"spec\": {\"devices\": " + devices(THEIRS, "gpu.tessera.dev") + "}}"))
        .isTrue();
    assertThat(sent(claim, "{\"spec\": {\"devices\": " + devices(THEIRS, "other") + "}}"))
        .isFalse();
    assertThat(
            sent(
                claim,
                """
                {"spec": {"devices": {"requests": [{"name": "b", "firstAvailable": [
                  {"name": "a", "deviceClassName": "x",
                   "selectors": [{"cel": {"expression": "%s"}}]}]}]}}}"""
                    .formatted(OURS)))
        .isTrue();
    assertThat(sent(claim, "{\"spec\": {\"devices\": {}}}")).isFalse();
  }

  @Test
  void aTemplateIsSentForASelectorThatNamesTessera() throws Exception {
    String template = "claimtemplates.gpu.tessera.dev";
    assertThat(sent(template, "{\"spec\": {\"spec\": {\"devices\": " + devices(OURS, "o") + "}}}"))
        .isTrue();
    assertThat(
            sent(template, "{\"spec\": {\"spec\": {\"devices\": " + devices(THEIRS, "o") + "}}}"))
        .isFalse();
  }

  @Test
  void aDeviceClassIsSentForASelectorThatNamesTessera() throws Exception {
    String deviceClass = "deviceclasses.gpu.tessera.dev";
    assertThat(
            sent(
                deviceClass,
                "{\"spec\": {\"selectors\": [{\"cel\": {\"expression\":"
                    + " \"device.driver == 'gpu.tessera.dev'\"}}]}}"))
        .isTrue();
    assertThat(
            sent(
                deviceClass,
                "{\"spec\": {\"selectors\": [{\"cel\": {\"expression\": \"" + THEIRS + "\"}}]}}"))
        .isFalse();
    assertThat(sent(deviceClass, "{\"spec\": {}}")).isFalse();
  }
}
