package dev.tessera.plugin.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain HTTP for Prometheus and the kubelet's readiness probe: {@code GET /prometheus} (the text
 * exposition format) and {@code GET /health} ({@code {"status":"UP"}}, as Micronaut's health
 * endpoint answered before). The JDK's own server, not Micronaut's netty one: two read-only paths
 * did not need the ~1,000 classes of an HTTP framework and Reactor in every node's memory.
 */
public final class MetricsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

  /** Micronaut's health endpoint answered its liveness and readiness sub-paths the same. */
  private static final Set<String> HEALTH =
      Set.of("/health", "/health/liveness", "/health/readiness");

  private static final byte[] UP = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService handlers;

  private MetricsServer(HttpServer server, ExecutorService handlers) {
    this.server = server;
    this.handlers = handlers;
  }

  /**
   * Serves on {@code port} on all interfaces; a negative port picks a free one (two plugin pods
   * share a host network during a rolling upgrade), which the {@code serving metrics} log line
   * names: scrapers and the E2E tier find the port there.
   */
  public static MetricsServer start(int port, Supplier<String> scrape) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(Math.max(port, 0)), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on port " + port, e);
    }
    server.createContext(
        "/prometheus",
        exchange ->
            reply(
                exchange,
                exchange.getRequestURI().getPath().equals("/prometheus"),
                PROMETHEUS_TEXT,
                () -> scrape.get().getBytes(StandardCharsets.UTF_8)));
    server.createContext(
        "/health",
        exchange ->
            reply(
                exchange,
                HEALTH.contains(exchange.getRequestURI().getPath()),
                "application/json",
                () -> UP));
    // Virtual threads: no platform thread waits for a scraper beside the server's dispatcher.
    ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(handlers);
    server.start();
    LOG.atInfo()
        .addKeyValue("port", server.getAddress().getPort())
        .addKeyValue("path", "/prometheus")
        .log("serving metrics");
    return new MetricsServer(server, handlers);
  }

  /** The port served. */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void reply(
      HttpExchange exchange, boolean known, String contentType, Supplier<byte[]> body)
      throws IOException {
    try (exchange) {
      if (!known) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes = body.get();
      exchange.getResponseHeaders().set("Content-Type", contentType);
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  /** Stops at once: the kubelet waits for the pod, and a scrape cut short is retried. */
  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
  }
}
