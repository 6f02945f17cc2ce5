package dev.tessera.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeviceNameTest {
  @Test
  void gpuNamesRoundTrip() {
    assertThat(new DeviceName.Gpu(3).value()).isEqualTo("gpu-3");
    assertThat(DeviceName.parse("gpu-3")).isEqualTo(new DeviceName.Gpu(3));
  }

  @Test
  void migNamesDropWhatADnsLabelCannotHold() {
    var name = new DeviceName.Mig(1, "1g.10gb+me", 6);
    assertThat(name.value()).isEqualTo("gpu-1-mig-1g10gbme-6");
    assertThat(DeviceName.parse(name.value())).isEqualTo(name);
    assertThat(name.value()).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?").hasSizeLessThanOrEqualTo(63);
    assertThat(new DeviceName.Mig(0, "4G.40GB_é", 0).value()).isEqualTo("gpu-0-mig-4g40gb-0");
  }

  @Test
  void namesTesseraNeverMakesAreRefused() {
    assertThatThrownBy(() -> DeviceName.parse("gpu-x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gpu-x");
    assertThatThrownBy(() -> DeviceName.parse("nic-0"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
