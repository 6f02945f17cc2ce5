package dev.tessera.controller.publish;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A key and a self-signed certificate for 127.0.0.1, made by the JDK's keytool into a PKCS#12
 * store: what the tests' own TLS servers present to a client that trusts {@link #pem}.
 *
 * @param store the PKCS#12 file
 * @param password the store's and the key's password
 * @param keys the store, loaded
 * @param alias the key's name in it
 */
public record LoopbackCertificate(Path store, String password, KeyStore keys, String alias) {
  /** Makes one named {@code name} (its file, alias and common name) in {@code dir}. */
  public static LoopbackCertificate make(Path dir, String name)
      throws IOException, GeneralSecurityException, InterruptedException {
    Files.createDirectories(dir);
    Path store = dir.resolve(name + ".p12");
    Files.deleteIfExists(store);
    String password = name;
    Process made =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + name,
                "-ext",
                "san=ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                password)
            .redirectErrorStream(true)
            .start();
    String output = new String(made.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (made.waitFor() != 0) {
      throw new IOException("keytool failed: " + output);
    }
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(store)) {
      keys.load(in, password.toCharArray());
    }
    return new LoopbackCertificate(store, password, keys, name);
  }

  /** A server's TLS context presenting this key and certificate. */
  public SSLContext serverContext() throws GeneralSecurityException {
    var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, password.toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), null, null);
    return tls;
  }

  /** The certificate, PEM-encoded: the CA a client trusts. */
  public String pem() {
    try {
      return "-----BEGIN CERTIFICATE-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
              .encodeToString(keys.getCertificate(alias).getEncoded())
          + "\n-----END CERTIFICATE-----\n";
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the store " + store + " was loaded when made", e);
    }
  }

  /**
   * A kubeconfig in {@code dir}, {@code file}, that reaches the server at {@code url}, which
   * presents this certificate, trusting it. It carries no credentials.
   */
  public Path writeKubeconfig(Path dir, String file, String url) throws IOException {
    return Files.writeString(
        dir.resolve(file),
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: loopback
          cluster: {server: "%s", certificate-authority-data: %s}
        users:
        - name: loopback
          user: {}
        contexts:
        - name: loopback
          context: {cluster: loopback, user: loopback}
        current-context: loopback
        """
            .formatted(
                url,
                Base64.getEncoder().encodeToString(pem().getBytes(StandardCharsets.US_ASCII))));
  }
}
