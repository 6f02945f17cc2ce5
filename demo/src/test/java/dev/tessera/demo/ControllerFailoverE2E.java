package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two controller replicas: one leads and publishes while the other fills its caches; when the first
 * goes, the other takes over.
 */
class ControllerFailoverE2E {
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
  void theSecondReplicaTakesOverWhenTheLeaderGoes() throws Exception {
    try (var second = tessera.processes().startAnotherController()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(second.log()).contains("waiting to lead"));
      assertThat(Files.readString(tessera.processes().controller().log())).contains("leading");
      // The first replica leads; the second fills its caches while it waits, and does not publish.
      await().atMost(Duration.ofSeconds(30)).until(second::cachesSynced);
      assertThat(Files.readString(second.log()))
          .doesNotContain(" leading ")
          .doesNotContain("published the node's slices");

      tessera.processes().controller().close();
      // Its context closed at SIGTERM: it gave its Lease up rather than leave it to expire.
      assertThat(Files.readString(tessera.processes().controller().log()))
          .contains("released the lead");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(second.log()).contains(" leading "));

      tessera.slices().forEach(s -> tessera.client().resource(s).delete());
      await().atMost(Duration.ofSeconds(30)).until(() -> !tessera.slices().isEmpty());
    }
  }
}
