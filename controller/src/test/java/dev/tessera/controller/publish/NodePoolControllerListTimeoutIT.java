package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replica that comes to lead while the first of its caches' lists never ends (an answer that
 * stalls after its headers, for which fabric8's JDK client has no timeout): its start gives up once
 * the list has taken longer than the list timeout, naming the list, so that {@link LeaderElection}
 * exits and the lead goes to another replica ({@code
 * LeaderElectionIT.aLeaderThatCannotPublishStopsAndExits}), where it waited for good before.
 */
// A start that waits for good fails the test, and does not hold up the build: the wait cannot be
// interrupted, so the test runs on a thread of its own that is left behind.
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NodePoolControllerListTimeoutIT {
  private final StallingProxy api = StallingProxy.stallingEverything();
  private final KubernetesClient client =
      api.client(new ConfigBuilder().withOauthToken("test").build());
  private NodePoolController controller;

  NodePoolControllerListTimeoutIT() throws IOException {}

  @AfterEach
  void close() throws IOException {
    try {
      if (controller != null) {
        controller.stop();
      }
    } finally {
      client.close();
      api.close();
    }
  }

  @Test
  void aLeaderWhoseFirstListNeverEndsGivesUpNamingIt() {
    controller = controller(Duration.ofSeconds(2));
    controller.watch();
    long begun = System.nanoTime();

    assertThatThrownBy(controller::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the gpunodes list asked for at")
        .hasMessageContaining("has not ended within PT2S");

    assertThat(Duration.ofNanos(System.nanoTime() - begun))
        .as("given up after the list timeout, not before")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(api.requestLines())
        .as("a replica that never listed writes nothing")
        .isNotEmpty()
        .allMatch(r -> r.startsWith("GET /apis/gpu.tessera.dev/v1alpha1/gpunodes?"));
  }

  @Test
  void aReplicaStoppedWhileItsListsHangStopsWaitingWithoutFailing() throws Exception {
    controller = controller(Duration.ofMinutes(10));
    controller.watch();
    var start = TestNodePools.lead(controller);
    await().atMost(Duration.ofSeconds(10)).until(() -> !api.requestLines().isEmpty());

    controller.stop(); // as LeaderElection does when the lead is lost

    // Its informers' lists fail once it is stopped: a stopped replica's start returns, with no
    // failure to tell (one would be logged as if publishing could not start), and writes nothing.
    start.get(5, TimeUnit.SECONDS);
    assertThat(api.requestLines()).allMatch(r -> r.startsWith("GET "));
  }

  private NodePoolController controller(Duration listTimeout) {
    return TestNodePools.controller(
        client,
        new TestPublishSettings().listTimeout(listTimeout).build(),
        new SimpleMeterRegistry(),
        "list-timeout-it");
  }
}
