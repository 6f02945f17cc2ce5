package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.publish.StallingProxy;
import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A controller that comes to lead while its GpuNodes' first list stalls after its headers, on the
 * real API server through a proxy that ends TLS: it gives up once the list has taken longer than
 * {@code TESSERA_CONTROLLER_LIST_TIMEOUT}, naming the list, and exits, releasing the lead, which
 * the next replica takes and publishes with (decision 68; before, it held the lead and published
 * nothing for good).
 */
class StalledListE2E {
  private static final String GPU_NODES_LIST = "GET /apis/gpu.tessera.dev/v1alpha1/gpunodes?";

  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera =
        TesseraOnNode.startAsProcesses(Clusters.require(), "H100-SXM5-80GB", 2, Offering.EXCLUSIVE);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  @Test
  void aLeaderWhoseFirstListStallsExitsNamingItAndTheNextReplicaPublishes() throws Exception {
    Cluster cluster = Clusters.require();
    Path dir = Files.createTempDirectory("tessera-stalling-proxy");
    try (var proxy =
        StallingProxy.tlsBefore(
            Config.fromKubeconfig(Files.readString(cluster.adminKubeconfig())), dir)) {
      proxy.stall(line -> line.startsWith(GPU_NODES_LIST) && !line.contains("watch=true"));
      var processes = tessera.processes();
      // The first replica releases its lead at its stop; the one behind the proxy takes it.
      processes.controller().close();
      try (var stalled =
          processes.startAnotherController(
              "controller-stalled-list",
              Map.of(
                  "TESSERA_CONTROLLER_KUBECONFIG",
                  proxy.writeKubeconfig(dir).toString(),
                  "TESSERA_CONTROLLER_LIST_TIMEOUT",
                  "5s"))) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.readString(stalled.log()).contains(" leading "));
        await()
            .alias("the stalled leader's exit (its log: %s)".formatted(stalled.log()))
            .atMost(Duration.ofSeconds(30))
            .until(() -> !stalled.alive());
        assertThat(stalled.exitStatus()).isEqualTo(1);
        assertThat(Files.readString(stalled.log()))
            .contains("the gpunodes list asked for at")
            .contains("has not ended within PT5S")
            .doesNotContain("published the node's slices");
        assertThat(proxy.stalled()).isNotEmpty().allMatch(l -> l.startsWith(GPU_NODES_LIST));

        try (var next = processes.startAnotherController("controller-next", Map.of())) {
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> Files.readString(next.log()).contains(" leading "));
          tessera.slices().forEach(s -> tessera.client().resource(s).delete());
          await()
              .alias("slices published again by the next leader")
              .atMost(Duration.ofSeconds(30))
              .until(() -> !tessera.slices().isEmpty());
        }
      }
    } finally {
      TestFiles.deleteTree(dir);
    }
  }
}
