package dev.tessera.plugin.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.kubelet.registration.v1.InfoRequest;
import dev.tessera.api.kubelet.registration.v1.RegistrationGrpc;
import dev.tessera.plugin.it.KubeletClient;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The socket the kubelet finds is one that answers; a stale one is replaced; close removes it. On
 * the socket's own thread, calls run one at a time.
 */
class UnixSocketServerTest {
  @TempDir Path dir;

  @Test
  void theSocketAppearsUnderItsNameOnlyOnceItServes() throws Exception {
    Path socket = dir.resolve("registry").resolve("gpu.tessera.dev-reg.sock");
    Files.createDirectories(socket.getParent());
    Files.writeString(socket, "left by a killed plugin");
    var registration = new RegistrationService("gpu.tessera.dev", "/dra.sock", reason -> {});

    try (var server =
            UnixSocketServer.start(
                socket, List.of(registration), UnixSocketServer.Handlers.POOLED);
        var kubelet = new KubeletClient(socket, socket)) {
      assertThat(kubelet.getInfo().getName()).isEqualTo("gpu.tessera.dev");
      // Nothing else in the watched directory: the hidden name it was bound under is gone.
      try (var files = Files.list(socket.getParent())) {
        assertThat(files).containsExactly(socket);
      }
      assertThat(server.socket()).isEqualTo(socket);
    }
    assertThat(socket).doesNotExist();
  }

  @Test
  void onTheSocketThreadACallThatBlocksHoldsTheNextCallUntilItReturns() throws Exception {
    var started = new CountDownLatch(1);
    var release = new CountDownLatch(1);
    Path socket = dir.resolve("reg.sock");
    // The kubelet's rejection runs its handler to the end before the call's answer is sent.
    var registration = blockingOnRejection(started, release);

    try (var server =
            UnixSocketServer.start(
                socket, List.of(registration), UnixSocketServer.Handlers.ON_THE_SOCKET_THREAD);
        var kubelet = new KubeletClient(socket, socket)) {
      Thread blocked = Thread.ofPlatform().start(() -> kubelet.notifyRegistration(false, "no"));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      ManagedChannel channel = dial(socket);
      try {
        var info = RegistrationGrpc.newBlockingStub(channel);
        assertThatThrownBy(
                () ->
                    info.withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                        .getInfo(InfoRequest.getDefaultInstance()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        release.countDown();
        blocked.join(5_000);
        assertThat(blocked.isAlive()).isFalse();
        assertThat(
                info.withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getInfo(InfoRequest.getDefaultInstance())
                    .getName())
            .isEqualTo("gpu.tessera.dev");
      } finally {
        release.countDown();
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void pooledACallThatBlocksDoesNotHoldTheNextCall() throws Exception {
    var started = new CountDownLatch(1);
    var release = new CountDownLatch(1);
    Path socket = dir.resolve("reg.sock");
    var registration = blockingOnRejection(started, release);

    try (var server =
            UnixSocketServer.start(
                socket, List.of(registration), UnixSocketServer.Handlers.POOLED);
        var kubelet = new KubeletClient(socket, socket)) {
      Thread blocked = Thread.ofPlatform().start(() -> kubelet.notifyRegistration(false, "no"));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      ManagedChannel channel = dial(socket);
      try {
        assertThat(
                RegistrationGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getInfo(InfoRequest.getDefaultInstance())
                    .getName())
            .isEqualTo("gpu.tessera.dev");
        // Answered while the rejection's handler still waits on a pooled thread.
        assertThat(release.getCount()).isOne();
      } finally {
        release.countDown();
        blocked.join(5_000);
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static ManagedChannel dial(Path socket) {
    return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
  }

  /** A registration service whose handler, told of a rejection, waits for {@code release}. */
  private static RegistrationService blockingOnRejection(
      CountDownLatch started, CountDownLatch release) {
    return new RegistrationService(
        "gpu.tessera.dev",
        "/dra.sock",
        reason -> {
          started.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }
}
