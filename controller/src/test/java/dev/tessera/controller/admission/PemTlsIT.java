package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The serving TLS context from PEM files as openssl and Kubernetes TLS Secrets write them. */
class PemTlsIT {
  @TempDir Path dir;

  @Test
  void anRsaKeyAndCertificateLoad() throws Exception {
    var cert = SelfSignedCert.create(dir);
    assertThat(PemTls.serverContext(cert.certFile(), cert.keyFile()).getProtocol())
        .isEqualTo("TLS");
  }

  @Test
  void anEcKeyLoadsByTheCertificatesAlgorithm() throws Exception {
    var cert =
        SelfSignedCert.create(
            dir, List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"));
    assertThat(PemTls.serverContext(cert.certFile(), cert.keyFile())).isNotNull();
  }

  @Test
  void theContextServesItsKeyAndCertificateInAHandshake() throws Exception {
    for (var keyOptions :
        List.of(
            List.<String>of(),
            List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"))) {
      Path keyDir = Files.createTempDirectory(dir, "key");
      var cert = SelfSignedCert.create(keyDir, keyOptions);
      Certificate served;
      try (var server =
          (SSLServerSocket)
              PemTls.serverContext(cert.certFile(), cert.keyFile())
                  .getServerSocketFactory()
                  .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        var accepted =
            CompletableFuture.runAsync(
                () -> {
                  try (var socket = (SSLSocket) server.accept()) {
                    socket.startHandshake();
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
        try (var client =
            (SSLSocket)
                cert.clientContext()
                    .getSocketFactory()
                    .createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
          client.startHandshake();
          served = client.getSession().getPeerCertificates()[0];
        }
        accepted.get(30, TimeUnit.SECONDS);
      }
      try (InputStream in = Files.newInputStream(cert.certFile())) {
        assertThat(served)
            .as("the certificate served, %s", keyOptions)
            .isEqualTo(CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
    }
  }

  @Test
  void aKeyInAnotherFormatIsRefusedSayingHowToConvertIt() throws Exception {
    var cert = SelfSignedCert.create(dir);
    Path pkcs1 = dir.resolve("rsa.key");
    Files.writeString(
        pkcs1, "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n");
    assertThatThrownBy(() -> PemTls.serverContext(cert.certFile(), pkcs1))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageContaining("no PKCS#8 key")
        .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
  }

  @Test
  void aFileWithoutACertificateIsRefused() throws Exception {
    var cert = SelfSignedCert.create(dir);
    Path empty = Files.writeString(dir.resolve("empty.crt"), "");
    assertThatThrownBy(() -> PemTls.serverContext(empty, cert.keyFile()))
        .isInstanceOf(GeneralSecurityException.class);
  }
}
