package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Table;
import io.fabric8.kubernetes.api.model.TableColumnDefinition;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a person reads about Tessera's work, on the real cluster (2 simulated H100s): the Events on
 * a claim ({@code kubectl describe resourceclaim}, {@code kubectl get events --field-selector
 * involvedObject.uid=...}) for scenario 1 and for dynamic MIG with a failed first prepare; {@code
 * kubectl get gpunodes} (the effective offering, free and total GPUs, unhealthy devices; the shared
 * memory in {@code -o wide}) and the holders in the GpuNode's status; the controller's taint Events
 * on the GpuNode; and that the plugin's service account may write Events but not delete them.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class EventsAndStatusE2E {
  private static final String GPU_PER_POD = "01-gpu-per-pod";
  private static final String MIG_DYNAMIC = "11-mig-dynamic-by-profile";
  private static TesseraOnNode tessera;
  private String scenario;

  @BeforeAll
  static void start() throws Exception {
    tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 2, Offering.EXCLUSIVE);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  @AfterEach
  void deleteScenario() throws Exception {
    if (scenario != null) {
      tessera.deleteScenarioAndWaitForUnprepare(scenario);
      scenario = null;
    }
    label(Offering.EXCLUSIVE.label());
  }

  @Test
  void getGpuNodesShowsTheDefaultOfferingWithoutALabelAndTheLabelledOneAfter() {
    label(null);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(gpuNodeRow())
                    .containsEntry("Offering", "exclusive")
                    .containsEntry("Free", 2L)
                    .containsEntry("GPUs", 2L)
                    .containsEntry("Unhealthy", 0L)
                    .containsKey("Shared-Free"));
    assertThat(priorities()).containsEntry("Shared-Free", 1).containsEntry("Offering", 0);

    label(Offering.MIG_DYNAMIC.label());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(gpuNodeRow()).containsEntry("Offering", "mig-dynamic"));
  }

  @Test
  void aPreparedClaimTellsItsDeviceAndTheGpuNodeItsHolderUntilUnprepared() throws Exception {
    run(GPU_PER_POD);
    tessera.assertClaimsReady(2);
    List<ResourceClaim> claims = tessera.claims();

    for (ResourceClaim claim : claims) {
      Event prepared = awaitEvent(claim.getMetadata().getUid(), "Prepared");
      assertThat(prepared.getType()).isEqualTo("Normal");
      assertThat(prepared.getMessage()).containsPattern("prepared gpu-[01] \\(GPU-");
      assertThat(prepared.getMessage()).contains("sharing Exclusive");
      assertThat(prepared.getSource().getComponent()).isEqualTo("tessera-kubelet-plugin");
      assertThat(prepared.getSource().getHost()).isEqualTo(tessera.nodeName());
      assertThat(prepared.getInvolvedObject().getKind()).isEqualTo("ResourceClaim");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(gpuNodeRow()).containsEntry("Free", 0L).containsEntry("GPUs", 2L);
              String devices = String.valueOf(gpuNodeStatus().get("devices"));
              for (ResourceClaim claim : claims) {
                assertThat(devices)
                    .contains("name=" + claim.getMetadata().getName())
                    .contains("uid=" + claim.getMetadata().getUid());
              }
              assertThat(devices).contains("gpu-pod-1").contains("gpu-pod-2");
            });

    tessera.deleteScenarioAndWaitForUnprepare(GPU_PER_POD);
    scenario = null;
    for (ResourceClaim claim : claims) {
      assertThat(awaitEvent(claim.getMetadata().getUid(), "Unprepared").getMessage())
          .startsWith("unprepared gpu-");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(gpuNodeRow()).containsEntry("Free", 2L);
              assertThat(gpuNodeStatus().get("devices")).isEqualTo(List.of());
            });
  }

  @Test
  void dynamicMigTellsAFailedPrepareThenTheMigDeviceMadeAndDestroyed() throws Exception {
    label(Offering.MIG_DYNAMIC.label());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                tessera.slices().stream()
                    .anyMatch(
                        s ->
                            s.getSpec().getDevices() != null
                                && s.getSpec().getDevices().stream()
                                    .anyMatch(d -> d.getName().contains("-mig-"))));
    // The simulator fails the first compute instance: the first prepare fails, the retry works.
    tessera.injectNvmlFault(
        "nvmlGpuInstanceCreateComputeInstance NVML_ERROR_INSUFFICIENT_RESOURCES 1");

    run(MIG_DYNAMIC);
    await().atMost(Duration.ofSeconds(60)).until(() -> !tessera.claims().isEmpty());
    String uid = tessera.claims().get(0).getMetadata().getUid();
    // The kubelet retries the failed prepare after its pod-sync backoff.
    awaitEvent(uid, "Prepared", Duration.ofSeconds(120));
    tessera.assertClaimsReady(1);

    Event failed = awaitEvent(uid, "PrepareFailed");
    assertThat(failed.getType()).isEqualTo("Warning");
    assertThat(failed.getMessage()).contains("NVML_ERROR_INSUFFICIENT_RESOURCES");
    assertThat(awaitEvent(uid, "MigDeviceCreated").getMessage())
        .containsPattern("created MIG device gpu-[01]-mig-1g10gb-\\d+ \\(profile 1g.10gb, MIG-");
    assertThat(awaitEvent(uid, "Prepared").getMessage()).containsPattern("gpu-[01]-mig-1g10gb-");

    tessera.deleteScenarioAndWaitForUnprepare(MIG_DYNAMIC);
    scenario = null;
    assertThat(awaitEvent(uid, "MigDeviceDestroyed").getMessage())
        .containsPattern("destroyed MIG device gpu-[01]-mig-1g10gb-");
  }

  @Test
  void theControllerTellsATaintAndItsRecoveryOnTheGpuNode() throws Exception {
    String gpuNodeUid =
        tessera
            .client()
            .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
            .withName(tessera.nodeName())
            .get()
            .getMetadata()
            .getUid();

    // The GpuNode outlives an install (its Node owns it): earlier tests' Events on it are older.
    Instant injected = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    tessera.injectNvmlEvent("1 xid 79");

    Event tainted =
        awaitEvent(gpuNodeUid, "DeviceTainted", "XID 79", injected, Duration.ofSeconds(30));
    assertThat(tainted.getType()).isEqualTo("Warning");
    // XID 79 is the GPU fallen off the bus: the gpu-lost taint, naming the XID.
    assertThat(tainted.getMessage()).contains("gpu-1").contains("gpu-lost").contains("XID 79");
    assertThat(tainted.getSource().getComponent()).isEqualTo("tessera-controller");
    assertThat(tainted.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(tainted.getInvolvedObject().getKind()).isEqualTo("GpuNode");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(gpuNodeRow()).containsEntry("Unhealthy", 1L));

    // Quiet for the recovery period (TesseraOnNode.HEALTH_RECOVERY): the taint is lifted.
    Event recovered =
        awaitEvent(gpuNodeUid, "DeviceRecovered", "gpu-1", injected, Duration.ofSeconds(60));
    assertThat(recovered.getMessage()).contains("gpu-1");
    assertThat(eventsOf(gpuNodeUid))
        .filteredOn(e -> e.getReason().equals("DeviceTainted"))
        .filteredOn(e -> e.getMessage().contains("gpu-1") && e.getMessage().contains("XID 79"))
        // An earlier run's Events on the same GpuNode live for the API server's event TTL (1 h).
        .filteredOn(e -> !lastSeen(e).isBefore(injected))
        .as("one taint, one Event (only the leader tells it, only on change)")
        .hasSize(1);
  }

  @Test
  void thePluginMayCreateAndPatchEventsButNotDeleteOrReadThem() {
    Assumptions.assumeTrue(
        tessera.deployment() instanceof TesseraRelease, "RBAC comes with the Helm release");
    String plugin = "system:serviceaccount:" + HelmChart.NAMESPACE + ":tessera-kubelet-plugin";
    String controller = "system:serviceaccount:" + HelmChart.NAMESPACE + ":tessera-controller";

    // kubectl auth can-i create events -n team-a --as=system:serviceaccount:tessera:...
    assertThat(canI(plugin, "create", "team-a")).isTrue();
    assertThat(canI(plugin, "patch", "team-a")).isTrue();
    assertThat(canI(plugin, "delete", "team-a")).isFalse();
    assertThat(canI(plugin, "list", "default")).isFalse();
    assertThat(canI(controller, "create", "default")).isTrue();
    assertThat(canI(controller, "create", "team-a")).isFalse();
    assertThat(canI(controller, "delete", "default")).isFalse();
  }

  private void run(String name) throws Exception {
    scenario = name;
    tessera.applyScenario(name);
  }

  /** Labels the node with an offering; null removes the label (the controller's default). */
  private static void label(String offering) {
    NodeLabels.set(tessera.client(), tessera.nodeName(), Offering.NODE_LABEL, offering);
  }

  /** {@code kubectl get gpunodes NODE}: column name to cell, as the API server prints them. */
  private static Map<String, Object> gpuNodeRow() {
    Table table = gpuNodeTable();
    var row = new LinkedHashMap<String, Object>();
    List<Object> cells = table.getRows().get(0).getCells();
    for (int i = 0; i < table.getColumnDefinitions().size(); i++) {
      Object cell = cells.get(i);
      row.put(
          table.getColumnDefinitions().get(i).getName(),
          cell instanceof Number n ? (Object) n.longValue() : cell);
    }
    return row;
  }

  /** The columns' priorities: 1 is shown only by {@code -o wide}. */
  private static Map<String, Integer> priorities() {
    var priorities = new LinkedHashMap<String, Integer>();
    for (TableColumnDefinition column : gpuNodeTable().getColumnDefinitions()) {
      priorities.put(column.getName(), column.getPriority());
    }
    return priorities;
  }

  private static Table gpuNodeTable() {
    return tessera
        .client()
        .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
        .withName(tessera.nodeName())
        .getAsTable();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> gpuNodeStatus() {
    return (Map<String, Object>)
        tessera
            .client()
            .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
            .withName(tessera.nodeName())
            .get()
            .getAdditionalProperties()
            .get("status");
  }

  /** {@code kubectl get events -A --field-selector involvedObject.uid=UID}. */
  private static List<Event> eventsOf(String uid) {
    return tessera
        .client()
        .v1()
        .events()
        .inAnyNamespace()
        .withField("involvedObject.uid", uid)
        .list()
        .getItems();
  }

  private static Event awaitEvent(String uid, String reason) {
    return awaitEvent(uid, reason, Duration.ofSeconds(30));
  }

  private static Event awaitEvent(String uid, String reason, Duration within) {
    return awaitEvent(uid, reason, "", Instant.EPOCH, within);
  }

  /**
   * The first Event of the object with the reason whose message names {@code about}: the GpuNode
   * outlives an install (its Node owns it), so it may carry an earlier test's Events.
   */
  private static Event awaitEvent(
      String uid, String reason, String about, Instant since, Duration within) {
    return await()
        .atMost(within)
        .until(
            () ->
                eventsOf(uid).stream()
                    .filter(e -> reason.equals(e.getReason()))
                    .filter(e -> e.getMessage() != null && e.getMessage().contains(about))
                    .filter(e -> !lastSeen(e).isBefore(since))
                    .findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }

  /** When the Event last happened (an aggregated Event's lastTimestamp moves on with each). */
  private static Instant lastSeen(Event e) {
    String last = e.getLastTimestamp() != null ? e.getLastTimestamp() : e.getFirstTimestamp();
    return last == null ? Instant.EPOCH : Instant.parse(last);
  }

  /** {@code kubectl auth can-i VERB events -n NAMESPACE --as=USER}. */
  private static boolean canI(String user, String verb, String namespace) {
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user)
            .withGroups("system:serviceaccounts", "system:authenticated")
            .withNewResourceAttributes()
            .withVerb(verb)
            .withResource("events")
            .withNamespace(namespace)
            .endResourceAttributes()
            .endSpec()
            .build();
    return tessera
        .client()
        .authorization()
        .v1()
        .subjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }
}
