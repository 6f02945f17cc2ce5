package dev.tessera.cli.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
      assertThat(selectorThreads()).as("selector threads while open").isPositive();

      http.close();

      assertThat(selectorThreads()).as("selector threads after close").isZero();
    } finally {
      server.stop(0);
    }
  }

  private static long selectorThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().contains("SelectorManager"))
        .count();
  }
}
