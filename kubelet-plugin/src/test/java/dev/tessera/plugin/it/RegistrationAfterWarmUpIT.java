package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin offers itself to the kubelet once its API client is warm, so the kubelet's first claim
 * does not wait for the client's first connection; and it still does when the API server does not
 * answer. The real jar, against an API server on loopback whose answers the test holds back.
 */
class RegistrationAfterWarmUpIT {
  private static final String WARM_UP_CLAIM = "tessera-warm-up-none";

  @TempDir Path dir;

  @Test
  void whileTheWarmUpWaitsForTheApiServerOnlyTheDraSocketIsServed() throws Exception {
    try (var api = new HeldApiServer();
        var plugin = start(api)) {
      assertThat(api.awaitHeld(Duration.ofSeconds(60))).as("the warm-up asked").isTrue();
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(plugin.draSocket()));
      Thread.sleep(500);
      assertThat(plugin.registrationSocket())
          .as("not offered to the kubelet while the warm-up's request is unanswered")
          .doesNotExist();

      api.answer();
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(plugin.registrationSocket()));
      // The plugin logs the offer once the socket is served: the file can exist before the line.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(Files.readString(plugin.log()))
                      .contains("rehearsed a prepare before registration")
                      .contains("offering registration to the kubelet"));
      // The rehearsal wrote nothing containerd or a restart would read.
      String[] specs = plugin.cdiDir().toFile().list();
      assertThat(specs == null ? new String[0] : specs).isEmpty();
      assertThat(
              Files.exists(plugin.checkpointFile())
                  ? Files.readString(plugin.checkpointFile())
                  : "")
          .doesNotContain("tessera-warm-up");
    }
  }

  @Test
  void anApiServerThatNeverAnswersDelaysTheRegistrationOnlyBriefly() throws Exception {
    try (var api = new HeldApiServer();
        var plugin = start(api)) {
      assertThat(api.awaitHeld(Duration.ofSeconds(60))).as("the warm-up asked").isTrue();
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(plugin.draSocket()));
      long draServed = System.nanoTime();
      // The plugin waits 2 s at most; the client's own timeout is 10 s or more.
      await().atMost(Duration.ofSeconds(8)).until(() -> Files.exists(plugin.registrationSocket()));
      assertThat(Duration.ofNanos(System.nanoTime() - draServed))
          .as("the registration waited for the warm-up")
          .isGreaterThan(Duration.ofSeconds(1));
      assertThat(api.answered()).as("the warm-up's request is still unanswered").isZero();
    }
  }

  private PluginProcess start(HeldApiServer api) throws IOException, InterruptedException {
    Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 1);
    return PluginProcess.start(
        KillablePlugin.JAR,
        dir.resolve("node"),
        PluginProcess.shippedJvmOptions(),
        PluginProcess.nodeEnv(dir, root, api.writeKubeconfig(dir)));
  }

  /**
   * Plain HTTP on loopback: holds every request for the warm-up's claim until {@link #answer}, then
   * answers it as the API server does a claim that does not exist; any other request too.
   */
  private static final class HeldApiServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger answered = new AtomicInteger();

    HeldApiServer() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.setExecutor(handlers);
      server.createContext(
          "/",
          exchange -> {
            if (exchange.getRequestURI().getPath().contains(WARM_UP_CLAIM)) {
              held.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.close();
                return;
              }
            }
            byte[] body =
                """
                {"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}
                """
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(404, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
            answered.incrementAndGet();
          });
      server.start();
    }

    Path writeKubeconfig(Path dir) throws IOException {
      return MockApiServer.writeKubeconfig(
          dir, "http://127.0.0.1:" + server.getAddress().getPort(), false);
    }

    boolean awaitHeld(Duration timeout) throws InterruptedException {
      return held.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void answer() {
      release.countDown();
    }

    int answered() {
      return answered.get();
    }

    @Override
    public void close() {
      release.countDown();
      server.stop(0);
      handlers.shutdownNow();
    }
  }
}
