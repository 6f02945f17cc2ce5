package dev.tessera.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tessera.api.config.DeviceConfig.GpuConfig;
import dev.tessera.api.config.DeviceConfig.MigDeviceConfig;
import dev.tessera.api.config.Sharing.TimeSliceInterval;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OpaqueConfigDecoderTest {
  private static final String PATH = "spec.devices.config[0].opaque.parameters";
  private final OpaqueConfigDecoder decoder = new OpaqueConfigDecoder();

  private static Map<String, Object> gpu(Map<String, Object> sharing) {
    return Map.of(
        "apiVersion", "gpu.tessera.dev/v1alpha1", "kind", "GpuConfig", "sharing", sharing);
  }

  private List<FieldError> errors(Object parameters) {
    return catchThrowableOfType(
            InvalidConfigException.class, () -> decoder.decode(parameters, PATH))
        .errors();
  }

  @Test
  void noSharingMeansExclusive() throws Exception {
    var config =
        decoder.decode(Map.of("apiVersion", "gpu.tessera.dev/v1alpha1", "kind", "GpuConfig"), PATH);
    assertThat(config).isEqualTo(new GpuConfig(new Sharing.Exclusive()));
  }

  @Test
  void timeSlicingDefaultsItsInterval() throws Exception {
    assertThat(decoder.decode(gpu(Map.of("strategy", "TimeSlicing")), PATH).sharing())
        .isEqualTo(new Sharing.TimeSlicing(TimeSliceInterval.Default));
    var longSlices =
        gpu(Map.of("strategy", "TimeSlicing", "timeSlicingConfig", Map.of("interval", "Long")));
    assertThat(decoder.decode(longSlices, PATH).sharing())
        .isEqualTo(new Sharing.TimeSlicing(TimeSliceInterval.Long));
  }

  @Test
  void mpsLimitsAreDecoded() throws Exception {
    var mps =
        gpu(
            Map.of(
                "strategy",
                "MPS",
                "mpsConfig",
                Map.of(
                    "defaultActiveThreadPercentage",
                    50,
                    "defaultPinnedDeviceMemoryLimit",
                    "10Gi")));
    assertThat(decoder.decode(mps, PATH).sharing())
        .isEqualTo(new Sharing.Mps(OptionalInt.of(50), OptionalLong.of(10L << 30)));
  }

  @Test
  void migDeviceConfigIsItsOwnKind() throws Exception {
    var config =
        decoder.decode(
            Map.of(
                "apiVersion", "gpu.tessera.dev/v1alpha1",
                "kind", "MigDeviceConfig",
                "sharing", Map.of("strategy", "MPS")),
            PATH);
    assertThat(config).isInstanceOf(MigDeviceConfig.class);
  }

  @Test
  void unknownFieldsAreRejectedWithTheirPath() {
    var bad = gpu(Map.of("strategy", "TimeSlicing", "replicas", 4));
    assertThat(errors(bad))
        .extracting(FieldError::field)
        .containsExactly(PATH + ".sharing.replicas");
  }

  @Test
  void wrongTypesAreRejectedWithTheirPath() {
    var bad =
        gpu(Map.of("strategy", "MPS", "mpsConfig", Map.of("defaultActiveThreadPercentage", "50")));
    assertThat(errors(bad))
        .containsExactly(
            new FieldError(
                PATH + ".sharing.mpsConfig.defaultActiveThreadPercentage",
                "must be an integer, got string"));
  }

  @Test
  void valuesOutsideTheAllowedSetNameTheAllowedOnes() {
    assertThat(errors(gpu(Map.of("strategy", "SpacePartitioning"))))
        .containsExactly(
            new FieldError(
                PATH + ".sharing.strategy",
                "unsupported value \"SpacePartitioning\"; allowed: Exclusive, TimeSlicing, MPS"));
    var badInterval =
        gpu(Map.of("strategy", "TimeSlicing", "timeSlicingConfig", Map.of("interval", "Fast")));
    assertThat(errors(badInterval).get(0).message())
        .isEqualTo("unsupported value \"Fast\"; allowed: Default, Short, Medium, Long");
  }

  @Test
  void settingsOfAnotherStrategyAreRejected() {
    var bad = gpu(Map.of("strategy", "Exclusive", "mpsConfig", Map.of()));
    assertThat(errors(bad))
        .containsExactly(
            new FieldError(PATH + ".sharing.mpsConfig", "only allowed when strategy is MPS"));
  }

  @Test
  void limitsOutOfRangeAreRejected() {
    var bad =
        gpu(
            Map.of(
                "strategy",
                "MPS",
                "mpsConfig",
                Map.of(
                    "defaultActiveThreadPercentage", 0, "defaultPinnedDeviceMemoryLimit", "lots")));
    assertThat(errors(bad))
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder(
            PATH + ".sharing.mpsConfig.defaultActiveThreadPercentage",
            PATH + ".sharing.mpsConfig.defaultPinnedDeviceMemoryLimit");
  }

  @Test
  void timeSliceSettingsAreAWholeGpuMatter() {
    var bad =
        Map.of(
            "apiVersion", "gpu.tessera.dev/v1alpha1",
            "kind", "MigDeviceConfig",
            "sharing",
                Map.of("strategy", "TimeSlicing", "timeSlicingConfig", Map.of("interval", "Long")));
    assertThat(errors(bad).get(0).field()).isEqualTo(PATH + ".sharing.timeSlicingConfig");
  }

  @Test
  void apiVersionAndKindAreRequiredAndChecked() {
    assertThat(errors(Map.of()))
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder(PATH + ".apiVersion", PATH + ".kind");
    assertThat(errors(Map.of("apiVersion", "gpu.nvidia.com/v1beta1", "kind", "GpuConfig")))
        .extracting(FieldError::message)
        .containsExactly(
            "unsupported value \"gpu.nvidia.com/v1beta1\"; allowed: gpu.tessera.dev/v1alpha1");
    assertThatThrownBy(() -> decoder.decode("GpuConfig", PATH))
        .hasMessage(PATH + ": must be an object, got string");
  }
}
