package dev.tessera.plugin.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The values of a sample as Prometheus shows them, and the series of a released claim going. */
class MeterBookTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MeterBook book = new MeterBook(registry);

  private static final Holder A = new Holder("team-a", "a", "uid-a", List.of("pod-1"), 8L << 30);
  private static final Holder B = new Holder("team-b", "b", "uid-b", List.of(), null);

  private static Readings readings() {
    return new Readings(
        Map.of(
            Metric.GPU_UTILIZATION, 0.87,
            Metric.MEMORY_USED, (double) (1L << 30),
            Metric.POWER, 312.5,
            Metric.ECC_CORRECTED, 5.0));
  }

  @Test
  void oneSeriesPerHolderWithTheDevicesValuesAndTheHoldersConsumedMemory() {
    var devices = List.of(new SampledDevice("gpu-0", "GPU-0", List.of(A, B)));

    book.apply(
        MetricValues.of("node-a", devices, Map.of("GPU-0", readings()), Map.of("gpu-0", 2L)));

    String text = registry.scrape();
    String a =
        "{claim_name=\"a\",claim_namespace=\"team-a\",claim_uid=\"uid-a\",device=\"gpu-0\","
            + "node=\"node-a\",pods=\"pod-1\",uuid=\"GPU-0\"}";
    assertThat(text)
        .contains("tessera_gpu_utilization_ratio" + a + " 0.87")
        .contains("tessera_gpu_memory_used_bytes" + a + " 1.073741824E9")
        .contains("tessera_gpu_power_watts" + a + " 312.5")
        .contains("tessera_gpu_ecc_corrected_errors_total" + a + " 5.0")
        .contains("tessera_gpu_xid_errors_total" + a + " 2.0")
        .contains("tessera_claim_memory_consumed_bytes" + a + " 8.589934592E9")
        .contains("tessera_gpu_utilization_ratio{claim_name=\"b\"");
    assertThat(text).doesNotContain("tessera_claim_memory_consumed_bytes{claim_name=\"b\"");
  }

  @Test
  void theSeriesOfAReleasedClaimGoAtTheNextSampleAndTheDeviceIsUnheld() {
    book.apply(
        MetricValues.of(
            "node-a",
            List.of(new SampledDevice("gpu-0", "GPU-0", List.of(A))),
            Map.of("GPU-0", readings()),
            Map.of()));
    int held = book.size();

    book.apply(
        MetricValues.of(
            "node-a",
            List.of(new SampledDevice("gpu-0", "GPU-0", List.of())),
            Map.of("GPU-0", readings()),
            Map.of()));

    String text = registry.scrape();
    assertThat(text).doesNotContain("uid-a");
    assertThat(text)
        .contains(
            "tessera_gpu_utilization_ratio{claim_name=\"\",claim_namespace=\"\",claim_uid=\"\","
                + "device=\"gpu-0\",node=\"node-a\",pods=\"\",uuid=\"GPU-0\"} 0.87");
    assertThat(book.size()).isEqualTo(held - 1); // no consumed memory without a holder
    assertThat(registry.getMeters()).hasSize(book.size());
  }

  @Test
  void aValueNvmlStopsGivingLosesItsSeriesAndTheOthersStay() {
    var devices = List.of(new SampledDevice("gpu-0", "GPU-0", List.of()));
    book.apply(MetricValues.of("node-a", devices, Map.of("GPU-0", readings()), Map.of()));

    book.apply(
        MetricValues.of(
            "node-a",
            devices,
            Map.of("GPU-0", new Readings(Map.of(Metric.POWER, 100.0))),
            Map.of()));

    String text = registry.scrape();
    assertThat(text).doesNotContain("tessera_gpu_utilization_ratio{");
    assertThat(text).contains("tessera_gpu_power_watts{").contains(" 100.0");
  }
}
