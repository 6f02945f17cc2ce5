package dev.tessera.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.cdi.CdiSpecBuilder.DeviceEdits;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class CdiSpecBuilderTest {
  private static final CdiSpec.ContainerEdits COMMON =
      new CdiSpec.ContainerEdits(
          List.of("NVIDIA_VISIBLE_DEVICES=void"),
          List.of(new CdiSpec.DeviceNode("/dev/nvidiactl", null)),
          List.of(new CdiSpec.Mount("/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi", List.of("ro"))));
  private final CdiSpecBuilder builder = new CdiSpecBuilder("gpu.tessera.dev", COMMON);

  @Test
  void oneCdiDevicePerDeviceNamedAfterTheClaim() {
    var spec =
        builder.build(
            "abc-1",
            List.of(
                new DeviceEdits("gpu-0", List.of(new CdiSpec.DeviceNode("/dev/nvidia0", null)))));
    assertThat(spec.kind()).isEqualTo("k8s.gpu.tessera.dev/claim");
    assertThat(spec.devices()).extracting(CdiSpec.Device::name).containsExactly("abc-1-gpu-0");
    assertThat(spec.containerEdits()).isEqualTo(COMMON);
    assertThat(builder.deviceId("abc-1", "gpu-0"))
        .isEqualTo("k8s.gpu.tessera.dev/claim=abc-1-gpu-0");
  }

  @Test
  void theVersionIsTheLowestTheFieldsNeed() {
    var plain =
        builder.build(
            "abc",
            List.of(
                new DeviceEdits("gpu-0", List.of(new CdiSpec.DeviceNode("/dev/nvidia0", null)))));
    assertThat(plain.cdiVersion()).isEqualTo("0.3.0");
    var hostPath =
        builder.build(
            "abc",
            List.of(
                new DeviceEdits(
                    "gpu-0",
                    List.of(
                        new CdiSpec.DeviceNode(
                            "/dev/nvidia0", "/run/nvidia/driver/dev/nvidia0")))));
    assertThat(hostPath.cdiVersion()).isEqualTo("0.5.0");
    var digit =
        builder.build(
            "1bc",
            List.of(
                new DeviceEdits("gpu-0", List.of(new CdiSpec.DeviceNode("/dev/nvidia0", null)))));
    assertThat(digit.cdiVersion()).isEqualTo("0.5.0");
  }

  @Test
  void emptyFieldsAreLeftOutOfTheFile() {
    var spec =
        builder.build(
            "abc",
            List.of(
                new DeviceEdits("gpu-0", List.of(new CdiSpec.DeviceNode("/dev/nvidia0", null)))));
    String json = JsonMapper.builder().build().writeValueAsString(spec);
    assertThat(json)
        .doesNotContain("null")
        .contains("\"deviceNodes\":[{\"path\":\"/dev/nvidia0\"}]")
        .doesNotContain("\"env\":[]");
  }
}
