package dev.tessera.plugin.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

/**
 * fabric8's CRUD mock API server on loopback, with a kubeconfig that points at it. Stands in for a
 * real kube-apiserver until the local cluster exists; it does not do server-side apply, so it is
 * only used for get and status updates of claims and merge patches ({@link
 * MergePatchingCrudDispatcher}). Plain HTTP, or HTTPS with the mock's own certificate (the
 * kubeconfig then skips its verification), for a run that should go through the client's TLS as it
 * does against a real API server.
 */
public final class MockApiServer implements AutoCloseable {
  // The mock logs every request through java.util.logging; held here so the level sticks.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final boolean https;

  public MockApiServer() {
    this(false);
  }

  public MockApiServer(boolean https) {
    this.https = https;
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new MergePatchingCrudDispatcher(),
            https);
    server.init();
    client = server.createClient();
  }

  public KubernetesClient client() {
    return client;
  }

  public Path writeKubeconfig(Path dir) throws IOException {
    return writeKubeconfig(dir, client.getConfiguration().getMasterUrl(), https);
  }

  /**
   * {@code dir/kubeconfig}: the API server at {@code url}, a token, its certificate's verification
   * skipped where {@code skipTlsVerify}.
   */
  static Path writeKubeconfig(Path dir, String url, boolean skipTlsVerify) throws IOException {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster: {server: "%s", insecure-skip-tls-verify: %s}
        users:
        - name: plugin
          user: {token: test}
        contexts:
        - name: mock
          context: {cluster: mock, user: plugin, namespace: default}
        current-context: mock
        """
            .formatted(url, skipTlsVerify));
    return file;
  }

  /** Waits for a request whose path contains {@code pathPart}, skipping the ones before it. */
  public boolean awaitRequest(String pathPart, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      var request =
          server.takeRequest(
              Math.max(1, (deadline - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
      if (request != null && request.getPath() != null && request.getPath().contains(pathPart)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The requests served since the last call (or since the start), each as "METHOD path", in order;
   * {@link #awaitRequest} takes the ones it reads.
   */
  public java.util.List<String> drainRequests() throws InterruptedException {
    var requests = new java.util.ArrayList<String>();
    for (var r = server.takeRequest(1, TimeUnit.MILLISECONDS);
        r != null;
        r = server.takeRequest(1, TimeUnit.MILLISECONDS)) {
      requests.add(r.getMethod() + " " + r.getPath());
    }
    return requests;
  }

  /**
   * The server first, then the client. fabric8's client close stops only its JDK HTTP client's
   * executor and leaves its connections open (over h2c, HTTP/2 to this server); the server's close
   * (Vert.x's, which fabric8 waits on for 10 s) failed with "Unable to close MockWebServer" in 2 of
   * some 40 runs of {@code NodePoolControllerStuckCacheIT}, with that client's tasks refused by its
   * stopped executor in the log. Closing the server while the client can still answer is the
   * suspected cure; the cause was not reproduced in isolation.
   */
  @Override
  public void close() {
    try {
      server.destroy();
    } finally {
      client.close();
    }
  }
}
