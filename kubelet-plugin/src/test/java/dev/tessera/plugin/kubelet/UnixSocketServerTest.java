package dev.tessera.plugin.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.it.KubeletClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The socket the kubelet finds is one that answers; a stale one is replaced; close removes it. */
class UnixSocketServerTest {
  @TempDir Path dir;

  @Test
  void theSocketAppearsUnderItsNameOnlyOnceItServes() throws Exception {
    Path socket = dir.resolve("registry").resolve("gpu.tessera.dev-reg.sock");
    Files.createDirectories(socket.getParent());
    Files.writeString(socket, "left by a killed plugin");
    var registration = new RegistrationService("gpu.tessera.dev", "/dra.sock", reason -> {});

    try (var server = UnixSocketServer.start(socket, List.of(registration));
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
}
