package dev.tessera.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.DeviceConfig.GpuConfig;
import dev.tessera.api.config.DeviceConfig.MigDeviceConfig;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AdminAccessRuleTest {
  private static final String PATH = "spec.devices.config[0].opaque.parameters";

  @Test
  void exclusiveIsAllowed() {
    assertThat(AdminAccessRule.check(GpuConfig.defaults(), PATH, "monitor")).isEmpty();
    assertThat(AdminAccessRule.check(MigDeviceConfig.defaults(), PATH, "monitor")).isEmpty();
  }

  @Test
  void everySharingStrategyIsRefusedNamingTheStrategyField() {
    var sliced = new GpuConfig(new Sharing.TimeSlicing(Sharing.TimeSliceInterval.Long));
    var mps = new MigDeviceConfig(new Sharing.Mps(OptionalInt.of(50), OptionalLong.empty()));
    assertThat(AdminAccessRule.check(sliced, PATH, "monitor"))
        .hasValueSatisfying(
            e -> {
              assertThat(e.field()).isEqualTo(PATH + ".sharing.strategy");
              assertThat(e.message())
                  .contains("request monitor has adminAccess")
                  .contains("TimeSlicing");
            });
    assertThat(AdminAccessRule.check(mps, PATH, "monitor"))
        .hasValueSatisfying(e -> assertThat(e.message()).contains("sharing MPS"));
  }
}
