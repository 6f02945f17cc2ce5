package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.plugin.app.KubeletPlugin;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a person reads about the plugin's work, through the real plugin on the simulator (H100 x2)
 * and the mock API server: Events on the claim (prepared, MPS started and joined, a failed prepare
 * aggregated, unprepared) and the GpuNode's holders and free GPUs, written beside the controller's
 * {@code status.offering} without erasing it.
 */
class EventsAndStatusIT {
  @RegisterExtension final SimulatedPlugin node = new SimulatedPlugin("H100-SXM5-80GB", 2);

  /** The kubelet registers the plugin, which then reports the inventory. */
  @BeforeEach
  void registered() {
    node.plugin().kubelet().notifyRegistration(true, "");
    var registered =
        node.plugin().context().getBean(KubeletPlugin.class).registration().registered();
    await().atMost(Duration.ofSeconds(5)).until(registered::isDone);
  }

  private ResourceClaim create(String name, String device, List<Map<String, Object>> params) {
    var claim =
        claim(
            "uid-" + name,
            name,
            List.of(result("gpu", device)),
            params.stream().map(p -> config("FromClaim", List.of("gpu"), p)).toList());
    claim
        .getStatus()
        .setReservedFor(
            List.of(
                new ResourceClaimConsumerReferenceBuilder()
                    .withResource("pods")
                    .withName(name + "-pod")
                    .withUid("pod-" + name)
                    .build()));
    return node.plugin().create(claim);
  }

  private String prepare(ResourceClaim claim) {
    return node.plugin().kubelet().prepare(claim).get(claim.getMetadata().getUid()).getError();
  }

  private List<Event> eventsOf(ResourceClaim claim) {
    return node.api().client().v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> claim.getMetadata().getUid().equals(e.getInvolvedObject().getUid()))
        .toList();
  }

  private Event awaitEvent(ResourceClaim claim, String reason) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> eventsOf(claim).stream().filter(e -> reason.equals(e.getReason())).findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> gpuNodeStatus() {
    var gpuNode =
        node.api()
            .client()
            .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
            .withName(PluginHarness.NODE)
            .get();
    return gpuNode == null
        ? Map.of()
        : (Map<String, Object>) gpuNode.getAdditionalProperties().getOrDefault("status", Map.of());
  }

  @Test
  void aPreparedClaimGetsAnEventNamingItsDeviceAndTheGpuNodeShowsItsHolder() {
    var claim = create("train", "gpu-0", List.of());

    assertThat(prepare(claim)).isEmpty();

    Event prepared = awaitEvent(claim, "Prepared");
    assertThat(prepared.getType()).isEqualTo("Normal");
    assertThat(prepared.getMessage()).contains("gpu-0").contains("sharing Exclusive");
    assertThat(prepared.getSource().getComponent()).isEqualTo("tessera-kubelet-plugin");
    assertThat(prepared.getSource().getHost()).isEqualTo(PluginHarness.NODE);
    assertThat(prepared.getReportingComponent()).isEqualTo("tessera-kubelet-plugin");
    assertThat(prepared.getInvolvedObject().getKind()).isEqualTo("ResourceClaim");
    assertThat(prepared.getInvolvedObject().getName()).isEqualTo("train");
    assertThat(prepared.getCount()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              var status = gpuNodeStatus();
              assertThat(status).containsEntry("gpuCount", 2).containsEntry("gpusFree", 1);
              assertThat(status.get("devices").toString())
                  .contains("device=gpu-0")
                  .contains("name=train")
                  .contains("uid=" + claim.getMetadata().getUid())
                  .contains("pods=[train-pod]");
            });

    assertThat(node.plugin().kubelet().unprepare(claim)).isEmpty();

    assertThat(awaitEvent(claim, "Unprepared").getMessage()).isEqualTo("unprepared gpu-0");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              // The patch also sets devices to [], which the CRUD mock's merge does not apply to a
              // list it holds (a real API server replaces it, RFC 7386); the count shows the write.
              assertThat(gpuNodeStatus()).containsEntry("gpusFree", 2);
            });
  }

  @Test
  void theFirstMpsClaimStartsTheDaemonAndTheSecondJoinsIt() {
    var a = create("a", "gpu-1", List.of(mps("GpuConfig", 40, "20Gi")));
    var b = create("b", "gpu-1", List.of(mps("GpuConfig", 40, "20Gi")));

    assertThat(prepare(a)).isEmpty();
    assertThat(prepare(b)).isEmpty();

    assertThat(awaitEvent(a, "MpsDaemonStarted").getMessage()).contains("gpu-1");
    assertThat(awaitEvent(b, "MpsDaemonJoined").getMessage()).contains("gpu-1");
    assertThat(awaitEvent(b, "Prepared").getMessage()).contains("sharing MPS");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              var status = gpuNodeStatus();
              assertThat(status).containsEntry("gpusFree", 1);
              assertThat(status.get("devices").toString())
                  .contains("sharing=MPS")
                  .contains("name=a")
                  .contains("name=b")
                  .contains("memoryFreeBytes=");
              assertThat((String) status.get("sharedMemoryFree")).isNotEqualTo("0Gi");
            });
  }

  @Test
  void aFailedPrepareIsAWarningWithTheKubeletsMessageCountedOnRetry() throws Exception {
    var claim = create("lost", "gpu-7", List.of());

    String error = prepare(claim);
    assertThat(error).isNotEmpty();
    assertThat(prepare(claim)).isEqualTo(error);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              List<Event> failed =
                  eventsOf(claim).stream()
                      .filter(e -> "PrepareFailed".equals(e.getReason()))
                      .toList();
              assertThat(failed).hasSize(1);
              assertThat(failed.get(0).getType()).isEqualTo("Warning");
              assertThat(failed.get(0).getMessage()).isEqualTo(error);
              assertThat(failed.get(0).getCount()).isEqualTo(2);
            });
    // The repeat is one merge patch of the Event, not a read and a patch.
    assertThat(node.api().drainRequests())
        .filteredOn(request -> request.contains("/events/"))
        .anyMatch(request -> request.startsWith("PATCH "))
        .noneMatch(request -> request.startsWith("GET "));
  }

  @Test
  void thePluginsStatusWritesLeaveTheControllersOffering() {
    var first = create("first", "gpu-0", List.of());
    assertThat(prepare(first)).isEmpty();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> gpuNodeStatus().get("gpusFree"), f -> f.equals(1));
    // What the controller writes (PoolPlanner's offering), as its own merge patch.
    node.api()
        .client()
        .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
        .withName(PluginHarness.NODE)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"offering\":\"shared\"}}");

    var second = create("second", "gpu-1", List.of());
    assertThat(prepare(second)).isEmpty();

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(gpuNodeStatus())
                    .containsEntry("gpusFree", 0)
                    .containsEntry("offering", "shared"));
  }

  /**
   * Changes that come within the status write's hold make one write, of the latest (a write follows
   * every prepare and unprepare; each written as soon as the last returned, their number grew with
   * the API server's speed).
   */
  @Test
  void healthChangesCloseTogetherMakeOneStatusWriteOfTheLatest() throws Exception {
    var reporter = node.plugin().context().getBean(GpuNodeReporter.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> gpuNodeStatus().containsKey("inventory"));
    Thread.sleep(300);
    node.api().drainRequests();

    long first = System.nanoTime();
    for (int i = 0; i < 4; i++) {
      reporter.reportHealth(i % 2 == 0 ? xid("gpu-1", "43") : NodeHealth.ALL_HEALTHY);
      Thread.sleep(15);
    }
    reporter.reportHealth(xid("gpu-0", "79"));
    long spanMillis = (System.nanoTime() - first) / 1_000_000;

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(gpuNodeStatus().get("health").toString())
                    .contains("gpu-0")
                    .contains("79")
                    .doesNotContain("gpu-1"));
    Thread.sleep(300);
    long writes =
        node.api().drainRequests().stream()
            .filter(r -> r.startsWith("PATCH") && r.contains("/gpunodes/node-a/status"))
            .count();
    // One write per 100 ms hold the changes spanned (a loaded box sleeps longer than asked).
    assertThat(writes)
        .as("status writes for 5 changes within %d ms", spanMillis)
        .isBetween(1L, 1 + spanMillis / 100);
  }

  private static NodeHealth xid(String device, String xid) {
    return new NodeHealth(
        List.of(
            new DeviceHealth(
                device,
                List.of(
                    new DeviceProblem(
                        "gpu.tessera.dev/xid",
                        xid,
                        TaintEffect.NO_SCHEDULE,
                        "XID " + xid,
                        Instant.parse("2026-12-05T12:00:00Z"),
                        null)))));
  }
}
