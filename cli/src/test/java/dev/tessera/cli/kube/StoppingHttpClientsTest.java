package dev.tessera.cli.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The JDK client's selector thread is gone once fabric8 closes the client (no 300 ms at exit). */
class StoppingHttpClientsTest {
  @Test
  void closingStopsTheSelectorThread() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    // Other tests' clients may leave theirs (fabric8's own factory does): only this one's count.
    Set<Thread> before = selectorThreads();
    try {
      HttpClient http =
          new StoppingHttpClients()
              .newBuilder(
                  new ConfigBuilder()
                      .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                      .build())
              .build();
      http.sendAsync(
              http.newHttpRequestBuilder()
                  .uri("http://127.0.0.1:" + server.getAddress().getPort() + "/")
                  .build(),
              byte[].class)
          .join();
      assertThat(newSince(before)).as("this client's selector thread while open").isNotEmpty();

      http.close();

      assertThat(newSince(before)).as("this client's selector thread after close").isEmpty();
    } finally {
      server.stop(0);
    }
  }

  private static Set<Thread> selectorThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().contains("SelectorManager"))
        .collect(Collectors.toSet());
  }

  private static Set<Thread> newSince(Set<Thread> before) {
    Set<Thread> now = selectorThreads();
    now.removeAll(before);
    return now;
  }
}
