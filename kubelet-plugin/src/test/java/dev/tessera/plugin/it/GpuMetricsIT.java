package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-claim GPU metrics of the real plugin on the simulator (H100 x2, GPU 1 in MIG mode with a
 * 1g.10gb device at slice 0): claims prepared over the kubelet socket, telemetry written into the
 * simulated driver's telemetry file, the series read as Prometheus text from the plugin's registry.
 */
class GpuMetricsIT {
  private static final String NODE = PluginHarness.NODE;
  private static final String MIG_DEVICE = "gpu-1-mig-1g10gb-0";

  @RegisterExtension
  final SimulatedPlugin node =
      new SimulatedPlugin("H100-SXM5-80GB", 2, "--mig-enabled", "1", "--mig", "1:19@0")
          .withProperty("tessera.metrics-period", "200ms")
          .withProperty("tessera.metrics-claim-refresh", "500ms");

  private String scrape() {
    return node.plugin().context().getBean(PrometheusMeterRegistry.class).scrape();
  }

  /** The lines of {@code metric} whose labels contain every one of {@code labels}. */
  private List<String> series(String metric, String... labels) {
    return Arrays.stream(scrape().split("\n"))
        .filter(line -> line.startsWith(metric + "{"))
        .filter(line -> Arrays.stream(labels).allMatch(line::contains))
        .toList();
  }

  private void awaitValue(String metric, String value, String... labels) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(series(metric, labels))
                    .hasSize(1)
                    .allMatch(l -> l.endsWith(" " + value)));
  }

  private void telemetry(String line) throws Exception {
    append(node.root().resolve("var/lib/mock-nvml/telemetry"), line);
  }

  private static void append(Path file, String line) throws Exception {
    Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  private static ResourceClaimConsumerReference pod(String name) {
    return new ResourceClaimConsumerReferenceBuilder()
        .withResource("pods")
        .withName(name)
        .withUid("uid-" + name)
        .build();
  }

  private ResourceClaim create(ResourceClaim claim, String... pods) {
    claim.getStatus().setReservedFor(Arrays.stream(pods).map(GpuMetricsIT::pod).toList());
    return node.plugin().create(claim);
  }

  private void prepare(ResourceClaim claim) {
    assertThat(node.plugin().kubelet().prepare(claim).get(claim.getMetadata().getUid()).getError())
        .isEmpty();
  }

  @Test
  void aClaimsSeriesCarryItsLabelsAndTheTelemetryAndGoWhenItIsReleased() throws Exception {
    var whole = create(claim("uid-a", "a", List.of(result("gpu", "gpu-0")), List.of()), "pod-a");
    prepare(whole);
    telemetry("0 gpu_util 87");
    telemetry("0 memory_util 41");
    telemetry("0 power_mw 312500");
    telemetry("0 temperature_c 71");
    telemetry("0 sm_clock_mhz 1755");
    telemetry("0 ecc_corrected 5");
    telemetry("0 process 4242 1073741824");
    String held =
        "{claim_name=\"a\",claim_namespace=\"default\",claim_uid=\""
            + whole.getMetadata().getUid()
            + "\",device=\"gpu-0\",node=\""
            + NODE
            + "\",pods=\"pod-a\",uuid=\"GPU-";

    awaitValue("tessera_gpu_utilization_ratio", "0.87", held);
    assertThat(series("tessera_gpu_memory_utilization_ratio", held))
        .singleElement()
        .asString()
        .endsWith(" 0.41");
    assertThat(series("tessera_gpu_power_watts", held))
        .singleElement()
        .asString()
        .endsWith(" 312.5");
    assertThat(series("tessera_gpu_temperature_celsius", held))
        .singleElement()
        .asString()
        .endsWith(" 71.0");
    assertThat(series("tessera_gpu_sm_clock_hertz", held))
        .singleElement()
        .asString()
        .endsWith(" 1.755E9");
    assertThat(series("tessera_gpu_ecc_corrected_errors_total", held))
        .singleElement()
        .asString()
        .endsWith(" 5.0");
    assertThat(series("tessera_gpu_memory_used_bytes", held))
        .singleElement()
        .asString()
        .endsWith(" 1.073741824E9");
    assertThat(series("tessera_gpu_memory_total_bytes", held))
        .singleElement()
        .asString()
        .endsWith(" " + (double) (81559L << 20));
    // An unheld device: one series with empty claim labels.
    String unheld = "{claim_name=\"\",claim_namespace=\"\",claim_uid=\"\",device=\"gpu-1\"";
    assertThat(series("tessera_gpu_power_watts", unheld))
        .singleElement()
        .asString()
        .endsWith(" 70.0");
    // NVML cannot give a MIG device's utilization: the value is skipped and counted, memory is
    // read.
    assertThat(series("tessera_gpu_utilization_ratio", "device=\"" + MIG_DEVICE + "\"")).isEmpty();
    assertThat(series("tessera_gpu_memory_total_bytes", "device=\"" + MIG_DEVICE + "\""))
        .hasSize(1);
    assertThat(
            series(
                "tessera_gpu_sample_errors_total",
                "call=\"nvmlDeviceGetUtilizationRates\"",
                "code=\"NVML_ERROR_NOT_SUPPORTED\""))
        .hasSize(1);

    // Values change over time; an XID the health monitor sees is counted on the device.
    telemetry("0 gpu_util 12");
    append(node.root().resolve("var/lib/mock-nvml/events"), "0 xid 48");
    awaitValue("tessera_gpu_utilization_ratio", "0.12", held);
    awaitValue("tessera_gpu_xid_errors_total", "1.0", held);

    // A failing call skips its value and the sampler carries on.
    append(
        node.root().resolve("etc/mock-nvml/faults"),
        "nvmlDeviceGetPowerUsage NVML_ERROR_GPU_IS_LOST 2");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !series("tessera_gpu_sample_errors_total", "code=\"NVML_ERROR_GPU_IS_LOST\"")
                    .isEmpty());
    awaitValue("tessera_gpu_power_watts", "312.5", held);

    // A pod that reserves the claim after its prepare shows up at the next read of the claim.
    var current = node.api().client().resource(whole).get();
    current.getStatus().setReservedFor(List.of(pod("pod-a"), pod("pod-b")));
    node.api().client().resource(current).updateStatus();
    awaitValue("tessera_gpu_utilization_ratio", "0.12", "claim_name=\"a\"", "pods=\"pod-a,pod-b\"");

    // Released: its series go at the next sample, and the device is unheld again.
    assertThat(node.plugin().kubelet().unprepare(whole)).isEmpty();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(scrape()).doesNotContain(whole.getMetadata().getUid()));
    assertThat(
            series(
                "tessera_gpu_utilization_ratio",
                "{claim_name=\"\",claim_namespace=\"\",claim_uid=\"\",device=\"gpu-0\""))
        .singleElement()
        .asString()
        .endsWith(" 0.12");
  }

  @Test
  void memorySharesShowTheirConsumedMemoryBesideTheMemoryOfTheGpusMpsClients() throws Exception {
    for (String name : List.of("a", "bb")) {
      var share =
          new DeviceRequestAllocationResultBuilder(result("gpu", "gpu-0"))
              .withShareID("00000000-0000-0000-0000-00000000000" + name.length())
              .withConsumedCapacity(Map.of("memory", new Quantity("20Gi")))
              .build();
      prepare(create(claim("uid-" + name, name, List.of(share), List.of()), "pod-" + name));
    }
    telemetry("0 mps_process 5000 1073741824");
    telemetry("0 mps_process 5001 536870912");

    for (String name : List.of("a", "bb")) {
      String holder = "claim_name=\"" + name + "\"";
      awaitValue(
          "tessera_claim_memory_consumed_bytes",
          String.valueOf((double) (20L << 30)),
          holder,
          "pods=\"pod-" + name + "\"",
          "device=\"gpu-0\"");
      awaitValue(
          "tessera_gpu_mps_client_memory_used_bytes",
          String.valueOf((double) ((1L << 30) + (512L << 20))),
          holder);
    }
    // A device not shared out consumes nothing of anyone's.
    assertThat(series("tessera_claim_memory_consumed_bytes", "device=\"gpu-1\"")).isEmpty();
  }
}
