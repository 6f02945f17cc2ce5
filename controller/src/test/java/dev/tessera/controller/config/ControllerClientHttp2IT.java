package dev.tessera.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.calls.CallDeadlines;
import dev.tessera.controller.config.Http2StallingServer.Request;
import dev.tessera.controller.config.Http2StallingServer.Reset;
import dev.tessera.controller.publish.LoopbackCertificate;
import dev.tessera.controller.publish.TestClock;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.http.HttpVersion;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's own client, as {@link ControllerFactory} builds it (the one its GpuNodes' status
 * writes and its Events go through), talking HTTP/2 over TLS as it does to a real API server: a
 * call given up past the call timeout resets its stalled stream, and the connection it shares with
 * every other call serves on. The test proxy of the other ITs speaks HTTP/1.1 only, where the
 * cancel closes a connection of the answer's own.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ControllerClientHttp2IT {
  private static final Duration BOUND = Duration.ofSeconds(2);
  private static final String STALLED = "/api/v1/namespaces/it/configmaps/stalled";

  private final TestClock clock = new TestClock(Instant.parse("2026-12-07T12:00:00Z"));
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final CallDeadlines deadlines = new CallDeadlines(BOUND, clock, metrics);
  private Http2StallingServer server;
  private KubernetesClient client;

  @AfterEach
  void close() throws Exception {
    try {
      if (client != null) {
        client.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  @Test
  void aGivenUpCallResetsItsStreamAndTheSharedConnectionServesOn(@TempDir Path dir)
      throws Exception {
    start(dir);
    var outcome = new CompletableFuture<ConfigMap>();
    Thread caller =
        onItsOwnThread(
            () -> deadlines.call("gpunode-status", "node-a", () -> read("stalled")), outcome);
    server.awaitStalledAnswer();

    clock.advance(BOUND.plusMillis(1));
    deadlines.interruptOverdue();

    caller.join(Duration.ofSeconds(5));
    assertThat(caller.isAlive()).as("the caller, its call given up").isFalse();
    assertThat(outcome).as("the given-up call").isCompletedExceptionally();
    await()
        .alias("the stalled stream reset by the client")
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(server.resetByClient())
                    .containsExactly(new Reset(STALLED, Http2StallingServer.CANCEL)));
    assertThat(read("whole").getMetadata().getName())
        .as("the next call's answer")
        .isEqualTo("whole");
    assertThat(server.requests())
        .as("both calls, as HTTP/2 streams of one connection")
        .extracting(Request::version, Request::connection)
        .containsOnly(org.assertj.core.groups.Tuple.tuple(HttpVersion.HTTP_2, 1))
        .hasSize(2);
    assertThat(server.connections()).as("connections opened").isEqualTo(1);
    assertThat(
            metrics
                .get("tessera.controller.calls.abandoned")
                .tag("call", "gpunode-status")
                .counter()
                .count())
        .as("calls given up")
        .isEqualTo(1);
  }

  /**
   * Why the client carries {@code CallAnswers}: an interrupt alone ends the caller's wait, and
   * fabric8 leaves the stream open for as long as the other end keeps it.
   */
  @Test
  void anInterruptAloneLeavesTheStalledStreamOpen(@TempDir Path dir) throws Exception {
    start(dir);
    var outcome = new CompletableFuture<ConfigMap>();
    Thread caller = onItsOwnThread(() -> read("stalled"), outcome);
    server.awaitStalledAnswer();

    caller.interrupt();

    caller.join(Duration.ofSeconds(5));
    assertThat(outcome).as("the interrupted call").isCompletedExceptionally();
    await()
        .alias("the stalled stream, left open")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(4))
        .until(() -> server.resetByClient().isEmpty());
  }

  private void start(Path dir) throws Exception {
    var certificate = LoopbackCertificate.make(dir, "http2-api-server");
    server = new Http2StallingServer(certificate);
    Path kubeconfig = certificate.writeKubeconfig(dir, "kubeconfig", server.url());
    client = new ControllerFactory().kubernetesClient(config(kubeconfig), deadlines);
  }

  /** Makes {@code call} on a thread of its own, which it returns; {@code outcome} ends with it. */
  private static Thread onItsOwnThread(
      Supplier<ConfigMap> call, CompletableFuture<ConfigMap> outcome) {
    return Thread.ofPlatform()
        .start(
            () -> {
              try {
                outcome.complete(call.get());
              } catch (RuntimeException e) {
                outcome.completeExceptionally(e);
              }
            });
  }

  private ConfigMap read(String name) {
    return client.configMaps().inNamespace("it").withName(name).get();
  }

  /** The controller's defaults, with {@code kubeconfig} and the call timeout this test runs. */
  private static ControllerConfig config(Path kubeconfig) {
    return new ControllerConfig(
        "gpu.tessera.dev",
        "exclusive",
        "kube-node-lease",
        Duration.ofSeconds(20),
        Duration.ofSeconds(15),
        kubeconfig.toString(),
        "kube-system",
        Duration.ofSeconds(15),
        null,
        null,
        8443,
        -1,
        Duration.ofMillis(200),
        Duration.ofMinutes(5),
        "NoSchedule",
        8,
        Duration.ofMinutes(5),
        BOUND,
        null);
  }
}
