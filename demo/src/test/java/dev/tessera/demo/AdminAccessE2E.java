package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Admin access on the real cluster (2 simulated H100s offered whole): a monitoring pod in a
 * namespace labelled {@code resource.kubernetes.io/admin-access: "true"} asks for every GPU with
 * {@code adminAccess}, beside an exclusive pod and an MPS pod that hold them. It sees every GPU,
 * the others keep theirs, and deleting either side leaves the other's CDI spec, checkpoint entry
 * and MPS daemon in place.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class AdminAccessE2E {
  private static final String SCENARIO = "16-admin-access";
  private static final String ADMIN_NS = "gpu-monitoring";
  private static TesseraOnNode tessera;

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
    tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
  }

  private static ResourceClaim adminClaim() {
    return tessera.claims(ADMIN_NS).stream().findFirst().orElseThrow();
  }

  private static String mpsLog() throws Exception {
    return tessera.driverToolLog("nvidia-cuda-mps-control");
  }

  /** What the admin pod saw, once it ran: every GPU, and that it has admin access. */
  private static String adminSawEveryGpu() {
    String admin = tessera.saw(ADMIN_NS, "admin-pod", null);
    assertThat(TesseraOnNode.gpus(admin)).containsExactlyInAnyOrder("0", "1");
    assertThat(admin).contains("TESSERA_ADMIN_ACCESS=true");
    return admin;
  }

  private static Set<String> specsOf(Set<String> claimUids) throws Exception {
    var specs = new HashSet<String>();
    for (String spec : tessera.cdiSpecs()) {
      if (claimUids.stream().anyMatch(spec::contains)) {
        specs.add(spec);
      }
    }
    return specs;
  }

  private static void deletePodAndWait(String namespace, String pod) {
    var pods = tessera.client().pods().inNamespace(namespace).withName(pod);
    pods.withGracePeriod(1).delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> pods.get() == null);
  }

  private static void deleteClaimAndWait(String namespace, String claim) {
    var claims =
        tessera
            .client()
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace(namespace)
            .withName(claim);
    claims.delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> claims.get() == null);
  }

  @Test
  @Scenario("16-admin-access")
  void anAdminPodSeesEveryGpuBesideTheirHoldersAndNeitherSideUndoesTheOther() throws Exception {
    tessera.applyScenario(SCENARIO);

    adminSawEveryGpu();
    String user = tessera.saw("gpu-pod", null);
    String mps = tessera.saw("mps-pod", null);
    assertThat(TesseraOnNode.gpus(user)).hasSize(1);
    assertThat(TesseraOnNode.gpus(mps))
        .hasSize(1)
        .doesNotContainAnyElementsOf(TesseraOnNode.gpus(user));
    assertThat(user).doesNotContain("TESSERA_ADMIN_ACCESS=true");
    assertThat(mps).contains("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50");
    tessera.assertClaimsReady(2);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(adminClaim().getStatus().getDevices())
                    .hasSize(2)
                    .allSatisfy(
                        d ->
                            assertThat(d.getConditions().get(0).getMessage())
                                .contains("admin access")));

    // The admin side goes: the others keep their entries, specs and the MPS daemon.
    String adminUid = adminClaim().getMetadata().getUid();
    Set<String> others = new HashSet<>(tessera.checkpointedClaims());
    others.remove(adminUid);
    assertThat(others).hasSize(2);
    Set<String> otherSpecs = specsOf(others);
    assertThat(otherSpecs).hasSize(2);
    deletePodAndWait(ADMIN_NS, "admin-pod");
    deleteClaimAndWait(ADMIN_NS, "every-gpu");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(tessera.checkpointedClaims()).isEqualTo(others));
    assertThat(specsOf(others)).isEqualTo(otherSpecs);
    assertThat(specsOf(Set.of(adminUid))).isEmpty();
    assertThat(mpsLog()).doesNotContain("quit");
    assertThat(tessera.mpsDaemonStarts()).isEqualTo(1);
    for (String pod : List.of("gpu-pod", "mps-pod")) {
      assertThat(tessera.client().pods().inNamespace("default").withName(pod).get())
          .satisfies(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
    }

    // The admin side again, then the others go: the admin claim keeps its entry and spec, and
    // the MPS daemon stops with the last MPS claim although the admin pod still has the GPU.
    tessera.applyScenario(SCENARIO);
    adminSawEveryGpu();
    String again = adminClaim().getMetadata().getUid();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(tessera.checkpointedClaims()).contains(again));
    Set<String> adminSpec = specsOf(Set.of(again));
    assertThat(adminSpec).hasSize(1);
    deletePodAndWait("default", "gpu-pod");
    deletePodAndWait("default", "mps-pod");
    deleteClaimAndWait("default", "mps-gpu");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(tessera.checkpointedClaims()).containsExactly(again));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(mpsLog()).contains("quit"));
    assertThat(specsOf(Set.of(again))).isEqualTo(adminSpec);
    assertThat(tessera.cdiSpecs()).hasSize(1);
    assertThat(tessera.client().pods().inNamespace(ADMIN_NS).withName("admin-pod").get())
        .satisfies(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
  }
}
