package dev.tessera.controller.admission;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.crypto.spec.PBEParameterSpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A server TLS context from the PEM files a Kubernetes Secret of type {@code kubernetes.io/tls}
 * holds (or {@code openssl req -x509 -newkey rsa:2048 -nodes} writes): the certificate chain, and
 * an unencrypted PKCS#8 private key ({@code BEGIN PRIVATE KEY}).
 */
public final class PemTls {
  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  /** The JDK's own default for a PKCS#12 store's keys, with one round instead of 10,000. */
  private static final String KEY_PROTECTION = "PBEWithHmacSHA256AndAES_256";

  private static final int SALT_BYTES = 20;

  private PemTls() {}

  public static SSLContext serverContext(Path certFile, Path keyFile)
      throws IOException, GeneralSecurityException {
    Certificate[] chain;
    try (InputStream in = Files.newInputStream(certFile)) {
      chain =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(in)
              .toArray(Certificate[]::new);
    }
    if (chain.length == 0) {
      throw new GeneralSecurityException("no certificate in " + certFile);
    }
    var matcher = PKCS8.matcher(Files.readString(keyFile));
    if (!matcher.find()) {
      throw new GeneralSecurityException(
          keyFile
              + " holds no PKCS#8 key (BEGIN PRIVATE KEY); convert it with"
              + " openssl pkcs8 -topk8 -nocrypt");
    }
    byte[] der = Base64.getMimeDecoder().decode(matcher.group(1));
    // The key is of the certificate's algorithm (RSA, EC, Ed25519).
    PrivateKey key =
        KeyFactory.getInstance(chain[0].getPublicKey().getAlgorithm())
            .generatePrivate(new PKCS8EncodedKeySpec(der));
    char[] password = new char[0];
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    // A PKCS#12 store encrypts a key it is given, and the key managers decrypt it again, each with
    // the JDK's 10,000 rounds of PBKDF2 by default: ~50 ms of the controller's start before the JIT
    // has compiled SHA-256. This store never leaves memory and its password is empty, so no number
    // of rounds protects anything (decision 63).
    store.setEntry(
        "webhook",
        new KeyStore.PrivateKeyEntry(key, chain),
        new KeyStore.PasswordProtection(
            password, KEY_PROTECTION, new PBEParameterSpec(new byte[SALT_BYTES], 1)));
    var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);
    return tls;
  }
}
