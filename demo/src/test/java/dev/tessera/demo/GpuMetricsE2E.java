package dev.tessera.demo;

import static dev.tessera.demo.PluginMetrics.label;
import static dev.tessera.demo.PluginMetrics.series;
import static dev.tessera.demo.PluginMetrics.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node plugin's per-claim GPU metrics during scenarios 1, 11, 14 and 15, scraped from the
 * plugin's {@code /prometheus} on the port its log announces ({@link PluginMetrics}), with values
 * written into the simulated driver's telemetry file: each claim's series carry its namespace,
 * name, UID and the pods reserving it, with the device's values; a memory share's series its
 * consumed memory beside the MPS clients' memory; and a released claim's series go. Each scenario
 * runs on its own install, with the offering it needs (the plugin samples every second here). The
 * scenarios' demos are their own tests (ScenariosE2E, MigDynamicE2E, SharingE2E, MemorySharesE2E);
 * these apply the same YAML for the metrics, so they carry no {@code @Scenario}.
 */
class GpuMetricsE2E {
  private static final String H100 = "H100-SXM5-80GB";
  private static final Duration SCRAPE = Duration.ofSeconds(30);
  private static final String UTILIZATION = "tessera_gpu_utilization_ratio";
  private static final String MEMORY_TOTAL = "tessera_gpu_memory_total_bytes";
  private static final String MPS_MEMORY = "tessera_gpu_mps_client_memory_used_bytes";
  private static final String CONSUMED = "tessera_claim_memory_consumed_bytes";

  /** One scenario on a fresh install; prints Tessera's logs when it fails, then removes it all. */
  private interface Run {
    void on(TesseraOnNode tessera) throws Exception;
  }

  private static void scenario(String name, int gpus, Offering offering, Run run) throws Exception {
    try (TesseraOnNode tessera = TesseraOnNode.start(Clusters.require(), H100, gpus, offering)) {
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> !tessera.slices().isEmpty());
        tessera.applyScenario(name);
        run.on(tessera);
      } catch (Exception | AssertionError e) {
        System.out.print(tessera.deployment().logs(TesseraLogsOnFailure.LINES));
        throw e;
      } finally {
        tessera.deleteScenarioAndWaitForUnprepare(name);
      }
    }
  }

  /** The claim a pod reserves. */
  private static ResourceClaim claimOf(TesseraOnNode tessera, String pod) {
    return tessera.claims().stream()
        .filter(c -> c.getStatus() != null && c.getStatus().getReservedFor() != null)
        .filter(c -> c.getStatus().getReservedFor().stream().anyMatch(r -> pod.equals(r.getName())))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no claim reserved by " + pod));
  }

  private static String claimLabels(ResourceClaim claim) {
    return "claim_name=\"%s\",claim_namespace=\"%s\",claim_uid=\"%s\""
        .formatted(
            claim.getMetadata().getName(),
            claim.getMetadata().getNamespace(),
            claim.getMetadata().getUid());
  }

  /** Waits until {@code metric} has exactly one series with {@code labels}, and returns it. */
  private static String awaitOne(TesseraOnNode tessera, String metric, String... labels) {
    String[] line = new String[1];
    await()
        .atMost(SCRAPE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              List<String> found = series(tessera.pluginMetrics(), metric, labels);
              assertThat(found).as(metric + " " + List.of(labels)).hasSize(1);
              line[0] = found.getFirst();
            });
    return line[0];
  }

  private static void awaitValue(
      TesseraOnNode tessera, String metric, double expected, String... labels) {
    await()
        .atMost(SCRAPE)
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(series(tessera.pluginMetrics(), metric, labels))
                    .as(metric + " " + List.of(labels))
                    .singleElement()
                    .satisfies(l -> assertThat(value(l)).isEqualTo(expected)));
  }

  private static void awaitGone(TesseraOnNode tessera, ResourceClaim claim) {
    await()
        .atMost(SCRAPE)
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(tessera.pluginMetrics()).doesNotContain(claim.getMetadata().getUid()));
  }

  @Test
  void eachPodsGpuHasItsClaimsSeriesWithTheGpusValues() throws Exception {
    scenario(
        "01-gpu-per-pod",
        2,
        Offering.EXCLUSIVE,
        tessera -> {
          tessera.saw("gpu-pod-1", null);
          tessera.saw("gpu-pod-2", null);
          tessera.injectTelemetry("0 gpu_util 55");
          tessera.injectTelemetry("1 gpu_util 66");
          tessera.injectTelemetry("0 power_mw 250000");
          var claims = List.of(claimOf(tessera, "gpu-pod-1"), claimOf(tessera, "gpu-pod-2"));
          for (int i = 0; i < 2; i++) {
            String pod = "gpu-pod-" + (i + 1);
            String line =
                awaitOne(tessera, UTILIZATION, claimLabels(claims.get(i)), "pods=\"" + pod + "\"");
            String device = label(line, "device");
            awaitValue(
                tessera,
                UTILIZATION,
                device.equals("gpu-0") ? 0.55 : 0.66,
                claimLabels(claims.get(i)),
                "device=\"" + device + "\"");
            assertThat(label(line, "uuid")).startsWith("GPU-");
            assertThat(label(line, "node")).isEqualTo(tessera.nodeName());
          }
          awaitValue(tessera, "tessera_gpu_power_watts", 250.0, "device=\"gpu-0\"");

          tessera.deleteScenarioAndWaitForUnprepare("01-gpu-per-pod");
          claims.forEach(c -> awaitGone(tessera, c));
          awaitValue(tessera, UTILIZATION, 0.55, "claim_uid=\"\"", "device=\"gpu-0\"");
        });
  }

  @Test
  void aMigDeviceMadeAtPrepareHasTheClaimsSeriesAndGoesWithIt() throws Exception {
    scenario(
        "11-mig-dynamic-by-profile",
        1,
        Offering.MIG_DYNAMIC,
        tessera -> {
          tessera.saw("mig-dynamic-pod", null);
          ResourceClaim claim = claimOf(tessera, "mig-dynamic-pod");
          String device =
              claim.getStatus().getAllocation().getDevices().getResults().getFirst().getDevice();
          assertThat(device).startsWith("gpu-0-mig-1g10gb-");
          // A 1-slice GPU instance at slice s has id 7 + s; its one compute instance is 0.
          int start = Integer.parseInt(device.substring(device.lastIndexOf('-') + 1));
          String labels = claimLabels(claim);

          awaitValue(
              tessera,
              MEMORY_TOTAL,
              9984.0 * (1 << 20),
              labels,
              "device=\"" + device + "\"",
              "pods=\"mig-dynamic-pod\"");
          assertThat(label(awaitOne(tessera, MEMORY_TOTAL, labels), "uuid")).startsWith("MIG-");
          // NVML gives no utilization for a MIG device: skipped and counted, until the driver does.
          assertThat(series(tessera.pluginMetrics(), UTILIZATION, labels)).isEmpty();
          assertThat(
                  series(
                      tessera.pluginMetrics(),
                      "tessera_gpu_sample_errors_total",
                      "call=\"nvmlDeviceGetUtilizationRates\"",
                      "code=\"NVML_ERROR_NOT_SUPPORTED\""))
              .isNotEmpty();
          tessera.injectTelemetry("0/" + (7 + start) + "/0 gpu_util 40");
          awaitValue(tessera, UTILIZATION, 0.40, labels, "device=\"" + device + "\"");

          tessera.deleteScenarioAndWaitForUnprepare("11-mig-dynamic-by-profile");
          awaitGone(tessera, claim);
          assertThat(tessera.pluginMetrics()).doesNotContain("device=\"" + device + "\"");
        });
  }

  @Test
  void anMpsClaimSharedByTwoPodsIsOneSeriesNamingBothWithItsClientsMemory() throws Exception {
    scenario(
        "14-mps-claim-shared-by-pods",
        2,
        Offering.EXCLUSIVE,
        tessera -> {
          tessera.saw("mps-pod-a", null);
          tessera.saw("mps-pod-b", null);
          ResourceClaim claim = claimOf(tessera, "mps-pod-a");
          String labels = claimLabels(claim);
          // pod-b may reserve the claim after its prepare: the plugin reads the claim again.
          String line = awaitOne(tessera, MEMORY_TOTAL, labels, "pods=\"mps-pod-a,mps-pod-b\"");
          String device = label(line, "device");
          int gpu = Integer.parseInt(device.substring("gpu-".length()));
          tessera.injectTelemetry(gpu + " mps_process 7001 2147483648");
          tessera.injectTelemetry(gpu + " mps_process 7002 1073741824");

          awaitValue(tessera, MPS_MEMORY, 3.0 * (1 << 30), labels, "device=\"" + device + "\"");
          // Not a memory share: it consumed no capacity.
          assertThat(series(tessera.pluginMetrics(), CONSUMED, labels)).isEmpty();

          tessera.deleteScenarioAndWaitForUnprepare("14-mps-claim-shared-by-pods");
          awaitGone(tessera, claim);
        });
  }

  @Test
  void eachMemoryShareShowsItsConsumedMemoryBesideTheMpsClientsMemory() throws Exception {
    scenario(
        "15-memory-shares",
        1,
        Offering.SHARED,
        tessera -> {
          List<String> pods =
              List.of("share-pod-1", "share-pod-2", "share-pod-3", "share-pod-4", "share-pod-5");
          await()
              .atMost(Duration.ofSeconds(90))
              .until(
                  () ->
                      pods.stream()
                              .filter(
                                  p -> {
                                    var pod =
                                        tessera
                                            .client()
                                            .pods()
                                            .inNamespace("default")
                                            .withName(p)
                                            .get();
                                    return pod != null && pod.getSpec().getNodeName() != null;
                                  })
                              .count()
                          == 4);
          for (int pid = 8001; pid <= 8004; pid++) {
            tessera.injectTelemetry("0 mps_process " + pid + " 1073741824");
          }
          var shares =
              tessera.claims().stream()
                  .filter(c -> c.getStatus() != null && c.getStatus().getAllocation() != null)
                  .toList();
          assertThat(shares).hasSize(4);
          for (ResourceClaim share : shares) {
            String pod = share.getStatus().getReservedFor().getFirst().getName();
            String labels = claimLabels(share);
            awaitValue(
                tessera,
                CONSUMED,
                16.0 * (1L << 30),
                labels,
                "device=\"gpu-0\"",
                "pods=\"" + pod + "\"");
            awaitValue(tessera, MPS_MEMORY, 4.0 * (1 << 30), labels);
          }
          // The pending fifth holds nothing.
          assertThat(series(tessera.pluginMetrics(), CONSUMED)).hasSize(4);

          tessera.deleteScenarioAndWaitForUnprepare("15-memory-shares");
          shares.forEach(s -> awaitGone(tessera, s));
          assertThat(series(tessera.pluginMetrics(), CONSUMED)).isEmpty();
        });
  }
}
