package dev.tessera.controller.publish;

import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.IOException;

/**
 * fabric8's CRUD mock API server behind a {@link StallingProxy}: what the controller's ITs that
 * stall one kind of answer run against. The code under test talks through the proxy ({@link
 * #client}); the test seeds and reads the server itself ({@link #direct}).
 */
public final class ProxiedMockApi implements AutoCloseable {
  private final MockApiServer server = new MockApiServer();
  private final StallingProxy proxy;
  private final KubernetesClient client;

  /** {@code interceptors} are the proxied client's, as the controller's clients carry theirs. */
  public ProxiedMockApi(Interceptor... interceptors) throws IOException {
    proxy = StallingProxy.before(server.client().getConfiguration().getMasterUrl());
    client = proxy.client(server.client().getConfiguration(), interceptors);
  }

  public StallingProxy proxy() {
    return proxy;
  }

  /** A client that reaches the server through the proxy. */
  public KubernetesClient client() {
    return client;
  }

  /** The server's own client, past the proxy. */
  public KubernetesClient direct() {
    return server.client();
  }

  /** The proxy first: a stalled answer's connection closes with it. */
  @Override
  public void close() throws IOException {
    try {
      proxy.close();
    } finally {
      try {
        client.close();
      } finally {
        server.close();
      }
    }
  }
}
