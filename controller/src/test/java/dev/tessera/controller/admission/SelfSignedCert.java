package dev.tessera.controller.admission;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed server certificate for 127.0.0.1 and localhost, made by {@code openssl} (the JDK
 * has no public API to issue one), as PEM files the webhook loads. Shared with the E2E tier, where
 * the API server trusts it through the webhook's {@code caBundle}.
 */
public record SelfSignedCert(Path certFile, Path keyFile) {

  public static SelfSignedCert create(Path dir) throws IOException, InterruptedException {
    return create(dir, List.of("-newkey", "rsa:2048"));
  }

  /** With other key options, e.g. {@code -newkey ec -pkeyopt ec_paramgen_curve:prime256v1}. */
  public static SelfSignedCert create(Path dir, List<String> keyOptions)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path cert = dir.resolve("webhook.crt");
    Path key = dir.resolve("webhook.key");
    Path log = dir.resolve("openssl.log");
    var command = new ArrayList<>(List.of("openssl", "req", "-x509", "-nodes", "-days", "2"));
    command.addAll(keyOptions);
    command.addAll(
        List.of(
            "-subj", "/CN=tessera-webhook", "-keyout", key.toString(), "-out", cert.toString()));
    command.addAll(List.of("-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"));
    Process openssl =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
      openssl.destroyForcibly();
      throw new IOException("openssl failed: " + Files.readString(log));
    }
    return new SelfSignedCert(cert, key);
  }

  /** The certificate as a {@code caBundle}: base64 of the PEM. */
  public String caBundle() throws IOException {
    return Base64.getEncoder()
        .encodeToString(Files.readString(certFile).getBytes(StandardCharsets.UTF_8));
  }

  /** A client context that trusts this certificate only. */
  public SSLContext clientContext() throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (var in = Files.newInputStream(certFile)) {
      trust.setCertificateEntry(
          "webhook", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, trustManagers.getTrustManagers(), null);
    return tls;
  }
}
