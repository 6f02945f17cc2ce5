package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.plugin.claim.PrepareException;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ApiServerClaimsTest {

  /** A loopback port nothing listens on any more: connections to it are refused. */
  private static int closedPort() throws Exception {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void aClaimReadWhileTheApiServerIsAwayFailsNamingTheClaimAndTheCause() throws Exception {
    try (KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder()
                        .withMasterUrl("https://127.0.0.1:" + closedPort())
                        .withRequestRetryBackoffLimit(1)
                        .withRequestRetryBackoffInterval(10)
                        .build())
                .build();
        var claims =
            new ApiServerClaims(
                () -> client, "gpu.tessera.dev", Clock.systemUTC(), Duration.ofMillis(10))) {
      assertThatThrownBy(() -> claims.get("team-a", "c1"))
          .isInstanceOf(PrepareException.class)
          .hasMessageContaining("cannot read claim team-a/c1 from the API server")
          .hasMessageContaining("cannot connect")
          .hasMessageContaining("the kubelet retries");
    }
  }
}
