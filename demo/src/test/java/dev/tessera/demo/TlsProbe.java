package dev.tessera.demo;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Run as its own JVM with the flags under test: opens one TLS connection to {@code host:port}
 * (trusting only the CAs in the PEM file given), completes the handshake and prints the cipher
 * suite the server chose. The JDK reads its TLS client settings once per JVM, so a test of what
 * given flags negotiate needs a fresh one.
 */
public final class TlsProbe {
  private TlsProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: TlsProbe HOST PORT CA_PEM");
    }
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(Path.of(args[2]))) {
      int i = 0;
      for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trust.setCertificateEntry("ca-" + i++, cert);
      }
    }
    var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, trustManagers.getTrustManagers(), null);
    try (var socket =
        (SSLSocket) tls.getSocketFactory().createSocket(args[0], Integer.parseInt(args[1]))) {
      socket.startHandshake();
      System.out.println(socket.getSession().getCipherSuite());
    }
  }
}
