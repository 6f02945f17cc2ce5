package dev.tessera.plugin.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.DeviceConfig.GpuConfig;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.config.Sharing.TimeSliceInterval;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ConsumedShareTest {
  private static final long GIB = 1L << 30;

  @Test
  void aShareOfMemoryBecomesAnMpsPinnedMemoryLimit() {
    var config = ConsumedShare.apply(GpuConfig.defaults(), Map.of("memory", new Quantity("20Gi")));

    assertThat(config.sharing())
        .isEqualTo(new Sharing.Mps(OptionalInt.empty(), OptionalLong.of(20 * GIB)));
  }

  @Test
  void aComputeShareBecomesTheActiveThreadPercentage() {
    var config =
        ConsumedShare.apply(
            GpuConfig.defaults(),
            Map.of("memory", new Quantity("20Gi"), "compute", new Quantity("25")));

    assertThat(config.sharing())
        .isEqualTo(new Sharing.Mps(OptionalInt.of(25), OptionalLong.of(20 * GIB)));
  }

  @Test
  void anMpsConfigKeepsItsLimitsWhereTheyAreLower() {
    var asked = new GpuConfig(new Sharing.Mps(OptionalInt.of(10), OptionalLong.of(40 * GIB)));

    var config =
        ConsumedShare.apply(
            asked, Map.of("memory", new Quantity("20Gi"), "compute", new Quantity("50")));

    assertThat(config.sharing())
        .isEqualTo(new Sharing.Mps(OptionalInt.of(10), OptionalLong.of(20 * GIB)));
  }

  @Test
  void withoutConsumedMemoryOrWithTimeSlicingNothingChanges() {
    var timeSliced = new GpuConfig(new Sharing.TimeSlicing(TimeSliceInterval.Short));

    assertThat(ConsumedShare.apply(GpuConfig.defaults(), null)).isEqualTo(GpuConfig.defaults());
    assertThat(ConsumedShare.apply(timeSliced, Map.of("memory", new Quantity("1Gi"))))
        .isEqualTo(timeSliced);
  }
}
