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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A leading controller whose slice create's answer stalls after its headers, on the real API server
 * through a proxy that ends TLS: the write is given up after {@code
 * TESSERA_CONTROLLER_CALL_TIMEOUT}, counted and logged, and the node's slices are published on its
 * retry (decision 69; before, the write held its worker and the node for good).
 */
class StalledSliceWriteE2E {
  private static final String SLICE_CREATE =
      "POST /apis/resource.k8s.io/v1/resourceslices HTTP/1.1";

  private static final String GIVEN_UP = "an API call has not ended within the call timeout";

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
  void aSliceWriteWhoseAnswerStallsIsGivenUpAndTheNodePublishedOnItsRetry() throws Exception {
    Cluster cluster = Clusters.require();
    Path dir = Files.createTempDirectory("tessera-stalling-proxy");
    try (var proxy =
        StallingProxy.tlsBefore(
            Config.fromKubeconfig(Files.readString(cluster.adminKubeconfig())), dir)) {
      var processes = tessera.processes();
      try (var proxied =
          processes.startAnotherController(
              "controller-stalled-write",
              Map.of(
                  "TESSERA_CONTROLLER_KUBECONFIG",
                  proxy.writeKubeconfig(dir).toString(),
                  "TESSERA_CONTROLLER_CALL_TIMEOUT",
                  "5s"))) {
        await().atMost(Duration.ofSeconds(60)).until(proxied::cachesSynced);
        // The first replica releases its lead at its stop; the one behind the proxy takes it.
        processes.controller().close();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.readString(proxied.log()).contains(" leading "));

        // The next slice create stalls; every request after it passes.
        var first = new AtomicBoolean(true);
        proxy.stall(line -> line.equals(SLICE_CREATE) && first.getAndSet(false));
        tessera.slices().forEach(s -> tessera.client().resource(s).delete());

        await()
            .alias("the stalled create given up (log: %s)".formatted(proxied.log()))
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.readString(proxied.log()).contains(GIVEN_UP));
        await()
            .alias("slices published again (log: %s)".formatted(proxied.log()))
            .atMost(Duration.ofSeconds(30))
            .until(() -> !tessera.slices().isEmpty());
        assertThat(proxy.stalled()).containsExactly(SLICE_CREATE);
        assertThat(Files.readString(proxied.log())).contains("node=\"" + tessera.nodeName() + "\"");
        assertThat(proxied.metrics())
            .contains("tessera_controller_calls_abandoned_total{call=\"slice-writes\"} 1.0")
            .doesNotContain("tessera_controller_slice_writes_rejected_total{");
        assertThat(proxied.alive()).as("the controller still runs").isTrue();
      }
    } finally {
      TestFiles.deleteTree(dir);
    }
  }
}
