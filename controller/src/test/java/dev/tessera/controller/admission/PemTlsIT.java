package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
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
