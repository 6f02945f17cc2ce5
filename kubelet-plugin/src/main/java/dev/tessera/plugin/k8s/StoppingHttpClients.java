package dev.tessera.plugin.k8s;

import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * fabric8's JDK HTTP client factory, whose close also stops the JDK client's selector thread.
 *
 * <p>Why: fabric8's close shuts its executor down but leaves the JDK client's selector thread in
 * {@code epoll_wait}, and a JVM exiting with a thread in native code waits for it, 10 ms at a time,
 * for 300 ms (HotSpot's {@code VM_Exit}): three times the node plugin's budget from SIGTERM to
 * exit. (The same class as {@code kubectl tessera}'s: the apps share only {@code api}, which has no
 * fabric8.) The JDK client is caught as fabric8 builds it and shut down ({@code shutdownNow}, then
 * waited for) when fabric8 closes it.
 */
public final class StoppingHttpClients extends JdkHttpClientFactory {
  private final List<HttpClient> built = new CopyOnWriteArrayList<>();

  @Override
  protected HttpClient.Builder createNewHttpClientBuilder() {
    return new Recording(super.createNewHttpClientBuilder());
  }

  @Override
  protected void closeHttpClient(JdkHttpClientImpl client) {
    super.closeHttpClient(client);
    for (HttpClient jdk : built) {
      jdk.shutdownNow();
      try {
        jdk.awaitTermination(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    built.clear();
  }

  /** A builder that hands every client it builds to {@link #built}. */
  private final class Recording implements HttpClient.Builder {
    private final HttpClient.Builder delegate;

    Recording(HttpClient.Builder delegate) {
      this.delegate = delegate;
    }

    @Override
    public HttpClient build() {
      HttpClient client = delegate.build();
      built.add(client);
      return client;
    }

    @Override
    public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
      delegate.cookieHandler(cookieHandler);
      return this;
    }

    @Override
    public HttpClient.Builder connectTimeout(Duration duration) {
      delegate.connectTimeout(duration);
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(SSLContext sslContext) {
      delegate.sslContext(sslContext);
      return this;
    }

    @Override
    public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
      delegate.sslParameters(sslParameters);
      return this;
    }

    @Override
    public HttpClient.Builder executor(Executor executor) {
      delegate.executor(executor);
      return this;
    }

    @Override
    public HttpClient.Builder followRedirects(HttpClient.Redirect policy) {
      delegate.followRedirects(policy);
      return this;
    }

    @Override
    public HttpClient.Builder version(HttpClient.Version version) {
      delegate.version(version);
      return this;
    }

    @Override
    public HttpClient.Builder priority(int priority) {
      delegate.priority(priority);
      return this;
    }

    @Override
    public HttpClient.Builder proxy(ProxySelector proxySelector) {
      delegate.proxy(proxySelector);
      return this;
    }

    @Override
    public HttpClient.Builder authenticator(Authenticator authenticator) {
      delegate.authenticator(authenticator);
      return this;
    }

    @Override
    public HttpClient.Builder localAddress(java.net.InetAddress localAddr) {
      delegate.localAddress(localAddr);
      return this;
    }
  }
}
