package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.TesseraDeployment.Kind;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Tessera installed with {@code helm install} ({@link TesseraRelease}), whatever way the other
 * tests deploy it: the webhook served by the controller pod with the chart's certificate refuses a
 * bad config; then a rolling upgrade of the DaemonSet (a new plugin pod beside the old one, sockets
 * of its own) while a scenario's pods hold prepared claims: they keep running, a claim made during
 * the upgrade and one made after it work.
 */
class HelmInstallE2E {

  @Test
  void tesseraInstalledWithHelmServesPodsAndSurvivesARollingUpgrade() throws Exception {
    try (var tessera =
        TesseraOnNode.start(
            Clusters.require(), Kind.HELM, "H100-SXM5-80GB", 4, Offering.EXCLUSIVE, Map.of())) {
      var client = tessera.client();
      TesseraRelease release = tessera.release();
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () ->
                    assertThatThrownBy(() -> client.resource(badClaim()).dryRun().create())
                        .hasMessageContaining("admission webhook")
                        .hasMessageContaining("sharing.strategy: unsupported value \"Sometimes\""));

        tessera.applyScenario("01-gpu-per-pod");
        var first = TesseraOnNode.gpus(tessera.saw("gpu-pod-1", null));
        var second = TesseraOnNode.gpus(tessera.saw("gpu-pod-2", null));
        assertThat(first).hasSize(1);
        assertThat(second).hasSize(1).doesNotContainAnyElementsOf(first);
        Map<String, String> started = startTimes(tessera, "gpu-pod-1", "gpu-pod-2");

        // Rolling upgrade: a changed pod template rolls the DaemonSet, new pod first (maxSurge 1).
        Pod firstPlugin = release.pluginPods().get(0);
        release.upgrade("plugin.podAnnotations.tessera\\.dev/rollout=second");
        // A new claim during the upgrade: prepared by whichever plugin pod the kubelet calls.
        tessera.applyScenario("02-two-gpus-one-claim");
        Pod secondPlugin = release.awaitOnePluginPodRegistered(firstPlugin.getMetadata().getUid());
        System.out.println(
            "--- the upgraded plugin pod's log:\n" + client.pods().resource(secondPlugin).getLog());

        // The pods holding prepared claims ran through it, untouched.
        assertThat(startTimes(tessera, "gpu-pod-1", "gpu-pod-2")).isEqualTo(started);
        // And the new claim got two GPUs, the two the first pods left.
        var both = TesseraOnNode.gpus(tessera.saw("two-gpu-pod", null));
        assertThat(both)
            .hasSize(2)
            .doesNotContainAnyElementsOf(first)
            .doesNotContainAnyElementsOf(second);
        // After the upgrade, a claim the new plugin prepares: scenario 4's shared claim.
        int logged = client.pods().resource(secondPlugin).getLog().length();
        tessera.deleteScenario("02-two-gpus-one-claim"); // its two GPUs go back to the pool
        tessera.applyScenario("04-claim-shared-by-pods");
        assertThat(TesseraOnNode.gpus(tessera.saw("team-pod-1", null)))
            .hasSize(1)
            .isEqualTo(TesseraOnNode.gpus(tessera.saw("team-pod-2", null)));
        assertThat(client.pods().resource(secondPlugin).getLog().substring(logged))
            .contains("claim prepared");
      } finally {
        tessera.deleteScenario("04-claim-shared-by-pods");
        tessera.deleteScenario("02-two-gpus-one-claim");
        tessera.deleteScenarioAndWaitForUnprepare("01-gpu-per-pod"); // waits for all
      }
    }
  }

  /** A claim whose Tessera config names a sharing strategy that does not exist. */
  private static ResourceClaim badClaim() {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName("bad-strategy")
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("gpu")
        .withNewExactly()
        .withDeviceClassName("gpu.tessera.dev")
        .endExactly()
        .endRequest()
        .addNewConfig()
        .withRequests("gpu")
        .withNewOpaque()
        .withDriver("gpu.tessera.dev")
        .withParameters(
            Map.of(
                "apiVersion",
                "gpu.tessera.dev/v1alpha1",
                "kind",
                "GpuConfig",
                "sharing",
                Map.of("strategy", "Sometimes")))
        .endOpaque()
        .endConfig()
        .endDevices()
        .endSpec()
        .build();
  }

  /** Each pod's container start time; a restarted container would have a new one. */
  private static Map<String, String> startTimes(TesseraOnNode tessera, String... pods) {
    return Stream.of(pods)
        .collect(
            Collectors.toMap(
                p -> p,
                p -> {
                  ContainerStatus status =
                      tessera
                          .client()
                          .pods()
                          .inNamespace("default")
                          .withName(p)
                          .get()
                          .getStatus()
                          .getContainerStatuses()
                          .get(0);
                  assertThat(status.getState().getRunning()).as(p + " running").isNotNull();
                  return status.getState().getRunning().getStartedAt()
                      + " restarts="
                      + status.getRestartCount();
                }));
  }
}
