package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the TLS flags in the node plugin's and the controller's {@code jvm.options} decide, each
 * checked in a fresh JVM (the JDK reads its TLS client settings once per JVM) against the cluster's
 * real API server (Go), beside a JVM without them: the flags are what decides.
 *
 * <ul>
 *   <li>The controller's JVM runs C1 only, where the JDK's AES-GCM has none of its intrinsics (~30
 *       MB/s) and ChaCha20-Poly1305 runs ~5x faster; a fleet's start decrypts its lists of GpuNodes
 *       through TLS, so it offers ChaCha20-Poly1305 first.
 *   <li>Both, and {@code kubectl-tessera}'s launcher, send their TLS 1.3 key shares for x25519 and
 *       P-384, not the JDK's x25519 and P-256: the first P-256 share builds the JDK's P-256 table,
 *       ~100 ms of the interpreter at every start, for a share Go's API server throws away
 *       (decision 62). A server that takes only P-256 (as one restricted to it for FIPS may) is
 *       still reached, asking again for it.
 * </ul>
 */
class TlsFlagsE2E {
  private static final Path REPO = HelmChart.REPO;
  private static final Path PLUGIN_OPTIONS = REPO.resolve("kubelet-plugin/jvm.options");
  private static final Path CONTROLLER_OPTIONS = REPO.resolve("controller/jvm.options");
  private static final Path CLI_INSTALLER = REPO.resolve("hack/install-kubectl-tessera");

  /** The JDK's precomputed P-256 table: loaded where, and only where, a P-256 share is made. */
  private static final String P256_TABLE =
      "sun.security.ec.ECOperations$Secp256R1GeneratorMontgomeryMultiplier";

  @TempDir Path work;

  /** What a probe JVM printed, and every class it loaded. */
  record Probe(String cipherSuite, String classesLoaded) {
    boolean madeAP256Share() {
      return classesLoaded.contains(P256_TABLE);
    }
  }

  @Test
  void theControllersFlagsNegotiateChaCha20WithTheApiServer() throws Exception {
    ApiServerEndpoint api = apiServer();
    assertThat(probe(JvmOptions.read(CONTROLLER_OPTIONS), api.host(), api.port(), api.ca()))
        .extracting(Probe::cipherSuite)
        .isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
    assertThat(probe(List.of(), api.host(), api.port(), api.ca()).cipherSuite())
        .startsWith("TLS_AES_")
        .contains("_GCM_");
  }

  /** The flags of one JVM that Tessera ships, named for the messages. */
  record Flags(String whose, List<String> options) {}

  /** The plugin's and the controller's {@code jvm.options}, and the CLI launcher's properties. */
  private static List<Flags> shipped() throws IOException {
    return List.of(
        new Flags(PLUGIN_OPTIONS.toString(), JvmOptions.read(PLUGIN_OPTIONS)),
        new Flags(CONTROLLER_OPTIONS.toString(), JvmOptions.read(CONTROLLER_OPTIONS)),
        new Flags("kubectl-tessera's launcher", JvmOptions.launcherProperties(CLI_INSTALLER)));
  }

  @Test
  void tesserasJvmsReachTheApiServerWithoutAP256KeyShare() throws Exception {
    ApiServerEndpoint api = apiServer();
    for (Flags flags : shipped()) {
      Probe probe = probe(flags.options(), api.host(), api.port(), api.ca());
      assertThat(probe.cipherSuite()).as("%s: the handshake", flags.whose()).startsWith("TLS_");
      assertThat(probe.madeAP256Share()).as("%s: a P-256 key share made", flags.whose()).isFalse();
    }
    assertThat(probe(List.of(), api.host(), api.port(), api.ca()).madeAP256Share())
        .as("the JDK's defaults: a P-256 key share made")
        .isTrue();
  }

  @Test
  void aServerThatTakesOnlyP256IsStillReached() throws Exception {
    Path keystore = work.resolve("server.p12");
    Path cert = work.resolve("server.pem");
    keytool(
        "-genkeypair -alias server -keyalg RSA -keysize 2048 -dname CN=127.0.0.1"
            + " -ext san=ip:127.0.0.1 -validity 1 -storetype PKCS12 -storepass changeit"
            + " -keypass changeit -keystore "
            + keystore);
    keytool(
        "-exportcert -rfc -alias server -storepass changeit -keystore "
            + keystore
            + " -file "
            + cert);
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      keys.load(in, "changeit".toCharArray());
    }
    var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, "changeit".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), null, null);

    for (Flags flags : shipped()) {
      try (var server =
          (SSLServerSocket)
              tls.getServerSocketFactory()
                  .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        CompletableFuture<String> served =
            CompletableFuture.supplyAsync(
                () -> {
                  try (var socket = (SSLSocket) server.accept()) {
                    var parameters = socket.getSSLParameters();
                    parameters.setProtocols(new String[] {"TLSv1.3"});
                    parameters.setNamedGroups(new String[] {"secp256r1"});
                    socket.setSSLParameters(parameters);
                    socket.startHandshake();
                    return socket.getSession().getProtocol();
                  } catch (IOException e) {
                    throw new IllegalStateException("the P-256-only server's handshake", e);
                  }
                });
        Probe probe = probe(flags.options(), "127.0.0.1", server.getLocalPort(), cert);
        assertThat(served.get(60, TimeUnit.SECONDS))
            .as("%s: the server's side", flags.whose())
            .isEqualTo("TLSv1.3");
        assertThat(probe.cipherSuite()).as("%s: the handshake", flags.whose()).startsWith("TLS_");
        // Asked again for P-256 (HelloRetryRequest), the client made that share after all.
        assertThat(probe.madeAP256Share())
            .as("%s: the P-256 share asked for", flags.whose())
            .isTrue();
      }
    }
  }

  private ApiServerEndpoint apiServer() throws IOException {
    return ApiServerEndpoint.of(
        Config.fromKubeconfig(Files.readString(Clusters.requireApiServer().adminKubeconfig())),
        work);
  }

  /**
   * One handshake from a fresh JVM with {@code options} to {@code host:port}, trusting {@code ca}:
   * the cipher suite the server chose, and the classes that JVM loaded.
   */
  private Probe probe(List<String> options, String host, int port, Path ca) throws Exception {
    Path classes = Files.createTempFile(work, "classes", ".log");
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(options);
    command.add("-Xlog:class+load=info:file=" + classes);
    command.addAll(
        List.of(
            "-cp",
            Path.of(TlsProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString(),
            TlsProbe.class.getName(),
            host,
            Integer.toString(port),
            ca.toString()));
    Path out = Files.createTempFile(work, "probe", ".log");
    Process probe =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(probe.waitFor(60, TimeUnit.SECONDS)).as("the probe finished").isTrue();
    String printed = Files.readString(out).strip();
    assertThat(probe.exitValue()).as("the probe's exit; it printed: %s", printed).isZero();
    return new Probe(
        printed.lines().reduce((first, second) -> second).orElse(""), Files.readString(classes));
  }

  /** Runs the JDK's keytool with {@code args} (split at spaces: no path here has one). */
  private void keytool(String args) throws Exception {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args.split(" ")));
    Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
    String printed = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
    assertThat(keytool.exitValue()).as("keytool's exit; it printed: %s", printed).isZero();
  }
}
