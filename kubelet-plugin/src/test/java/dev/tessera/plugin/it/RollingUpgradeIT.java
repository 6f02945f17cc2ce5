package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.checkpoint.CheckpointStore;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two plugin instances on one node, as a DaemonSet rolling upgrade runs them (old and new, each
 * with its own sockets, one checkpoint): calls to either are serialized by the node lock, and each
 * sees what the other wrote — a claim the old instance prepared is unprepared by the new one.
 */
class RollingUpgradeIT {
  @TempDir Path dir;
  private MockApiServer api;
  private PluginHarness old;
  private PluginHarness next;

  @BeforeEach
  void start() throws Exception {
    Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 8);
    api = new MockApiServer();
    old = new PluginHarness(dir.resolve("node"), root, api).asInstance("old").start();
    next = new PluginHarness(dir.resolve("node"), root, api).asInstance("new").start();
  }

  @AfterEach
  void stop() throws Exception {
    next.close();
    old.close();
    api.close();
  }

  @Test
  void bothInstancesServeTheirOwnSockets() {
    assertThat(old.registrationSocket()).isNotEqualTo(next.registrationSocket());
    assertThat(old.draSocket()).isNotEqualTo(next.draSocket());
    assertThat(Files.exists(old.registrationSocket())).isTrue();
    assertThat(Files.exists(next.registrationSocket())).isTrue();
    assertThat(old.kubelet().getInfo().getEndpoint()).isEqualTo(old.draSocket().toString());
    assertThat(next.kubelet().getInfo().getEndpoint()).isEqualTo(next.draSocket().toString());
  }

  @Test
  void concurrentCallsToBothInstancesShareOneConsistentCheckpoint() throws Exception {
    List<ResourceClaim> claims = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      claims.add(
          old.create(claim("uid-" + i, "c" + i, List.of(result("gpu", "gpu-" + i)), List.of())));
    }
    // Even claims through the old instance, odd through the new one, all at once.
    try (var pool = Executors.newFixedThreadPool(8)) {
      List<Future<String>> errors = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        var claim = claims.get(i);
        var kubelet = (i % 2 == 0 ? old : next).kubelet();
        Callable<String> prepare =
            () -> kubelet.prepare(claim).get(claim.getMetadata().getUid()).getError();
        errors.add(pool.submit(prepare));
      }
      for (var error : errors) {
        assertThat(error.get()).isEmpty();
      }
    }
    assertThat(checkpointedClaims()).hasSize(8);

    // The new instance unprepares what the old one prepared, and the old one sees it gone.
    for (int i = 0; i < 8; i += 2) {
      assertThat(next.kubelet().unprepare(claims.get(i))).isEmpty();
    }
    assertThat(checkpointedClaims())
        .containsExactlyInAnyOrder(uid(claims, 1), uid(claims, 3), uid(claims, 5), uid(claims, 7));
    assertThat(Files.exists(old.specFile(uid(claims, 0)))).isFalse();
    // The old instance does not answer from a stale memory: claim 0 is prepared afresh.
    var again = old.kubelet().prepare(claims.get(0)).get(uid(claims, 0));
    assertThat(again.getError()).isEmpty();
    assertThat(checkpointedClaims()).contains(uid(claims, 0));
    assertThat(Files.exists(old.specFile(uid(claims, 0)))).isTrue();
  }

  /** The API server's UID of a claim (the mock server gives its own). */
  private static String uid(List<ResourceClaim> claims, int i) {
    return claims.get(i).getMetadata().getUid();
  }

  private List<String> checkpointedClaims() {
    return List.copyOf(
        new CheckpointStore(old.checkpointFile(), JsonMapper.builder().build())
            .load("boot-1")
            .claims()
            .keySet());
  }
}
