package dev.tessera.controller.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain HTTP for Prometheus and the kubelet's probes: {@code GET /metrics} (text exposition format)
 * and {@code GET /healthz}. The JDK's server, not a framework: two read-only paths.
 */
public final class MetricsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

  private final HttpServer server; // null when disabled

  private MetricsServer(HttpServer server) {
    this.server = server;
  }

  /** No server (metrics port set negative). */
  public static MetricsServer disabled() {
    LOG.info("metrics not served (port < 0)");
    return new MetricsServer(null);
  }

  /** Serves on {@code port} (0 picks a free one) on all interfaces. */
  public static MetricsServer start(int port, PrometheusMeterRegistry registry) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
      server.createContext(
          "/metrics",
          exchange ->
              reply(
                  exchange,
                  "text/plain; version=0.0.4; charset=utf-8",
                  registry.scrape().getBytes(StandardCharsets.UTF_8)));
      server.createContext(
          "/healthz",
          exchange -> reply(exchange, "text/plain", "ok\n".getBytes(StandardCharsets.UTF_8)));
      server.setExecutor(Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory()));
      server.start();
      LOG.atInfo().addKeyValue("port", server.getAddress().getPort()).log("serving /metrics");
      return new MetricsServer(server);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on port " + port, e);
    }
  }

  /** The port served, or -1 when disabled. */
  public int port() {
    return server == null ? -1 : server.getAddress().getPort();
  }

  private static void reply(HttpExchange exchange, String contentType, byte[] body)
      throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", contentType);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    }
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
    }
  }
}
