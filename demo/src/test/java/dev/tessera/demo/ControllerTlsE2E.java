package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's JVM runs C1 only, where the JDK's AES-GCM has none of its intrinsics (~30 MB/s)
 * and ChaCha20-Poly1305 runs ~5x faster; a fleet's start decrypts its lists of GpuNodes through
 * TLS. Its {@code jvm.options} make the client offer ChaCha20-Poly1305 first. This checks against
 * the cluster's real API server (Go, which follows a client that prefers ChaCha20) that a JVM with
 * those flags gets ChaCha20, and that one without them gets AES-GCM: the flags are what decides.
 */
class ControllerTlsE2E {
  private static final Path REPO = HelmChart.REPO;

  @TempDir Path work;

  @Test
  void theControllersFlagsNegotiateChaCha20WithTheApiServer() throws Exception {
    Config config =
        Config.fromKubeconfig(Files.readString(Clusters.requireApiServer().adminKubeconfig()));
    URI api = URI.create(config.getMasterUrl());
    Path ca = caOf(config);

    assertThat(negotiated(JvmOptions.read(REPO.resolve("controller/jvm.options")), api, ca))
        .isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
    assertThat(negotiated(List.of(), api, ca)).startsWith("TLS_AES_").contains("_GCM_");
  }

  private Path caOf(Config config) throws IOException {
    if (config.getCaCertFile() != null) {
      return Path.of(config.getCaCertFile());
    }
    Path ca = work.resolve("ca.crt");
    Files.writeString(
        ca, new String(Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.UTF_8));
    return ca;
  }

  /** The cipher suite a fresh JVM with {@code options} negotiates with the API server. */
  private String negotiated(List<String> options, URI api, Path ca) throws Exception {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(options);
    command.addAll(
        List.of(
            "-cp",
            Path.of(TlsProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString(),
            TlsProbe.class.getName(),
            api.getHost(),
            Integer.toString(api.getPort() == -1 ? 443 : api.getPort()),
            ca.toString()));
    Path out = Files.createTempFile(work, "probe", ".log");
    Process probe =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(probe.waitFor(60, TimeUnit.SECONDS)).as("the probe finished").isTrue();
    String printed = Files.readString(out).strip();
    assertThat(probe.exitValue()).as("the probe's exit; it printed: %s", printed).isZero();
    return printed.lines().reduce((first, second) -> second).orElse("");
  }
}
