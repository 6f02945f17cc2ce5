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
 * The controller follows the node plugin's Lease: when the plugin is gone its node's slices are
 * withdrawn (here within seconds, well before the kubelet's own 30 s wipe), and when it is back
 * they are published again.
 */
class PluginLivenessE2E {
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
  void aGonePluginsSlicesAreWithdrawnAndComeBackWithIt() throws Exception {
    assertThat(tessera.slices()).isNotEmpty();

    long stopped = System.nanoTime();
    tessera.processes().stopPlugin();
    await().atMost(Duration.ofSeconds(25)).until(() -> tessera.slices().isEmpty());
    Duration withdrawn = Duration.ofNanos(System.nanoTime() - stopped);
    System.out.printf(
        "--- slices withdrawn %d ms after the plugin stopped%n", withdrawn.toMillis());
    // The controller logs the withdrawal once its deletes have returned: the slices can be gone a
    // moment before the line is written.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(Files.readString(tessera.processes().controller().log()))
                    .contains("pluginAlive=\"false\""));

    tessera.processes().startPlugin();
    await().atMost(Duration.ofSeconds(30)).until(() -> !tessera.slices().isEmpty());
  }
}
