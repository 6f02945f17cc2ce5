package dev.tessera.controller.admission;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admission webhook over HTTPS (the JDK's server: no framework for two paths): {@code POST
 * /validate} takes an AdmissionReview and answers with {@link AdmissionReviews}; {@code /healthz}
 * answers {@code ok}. A thin adapter: every decision is made in {@link AdmissionReviews}.
 */
public final class WebhookServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);
  public static final String VALIDATE = "/validate";
  public static final String HEALTHZ = "/healthz";
  // The API server refuses objects over 3 MiB, so a larger review is no review of ours.
  private static final int MAX_BODY = 4 << 20;

  private final HttpsServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final AdmissionReviews reviews;

  public WebhookServer(InetSocketAddress address, SSLContext tls, AdmissionReviews reviews)
      throws IOException {
    this.reviews = reviews;
    this.server = HttpsServer.create(address, 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.setExecutor(executor);
    server.createContext(VALIDATE, this::validate);
    server.createContext(HEALTHZ, this::healthz);
  }

  public void start() {
    server.start();
    LOG.atInfo().addKeyValue("port", port()).log("admission webhook serving");
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void validate(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        send(exchange, new WebhookReply(405, WebhookReply.TEXT, "POST an AdmissionReview\n"));
        return;
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readNBytes(MAX_BODY + 1);
      }
      if (body.length > MAX_BODY) {
        send(exchange, new WebhookReply(413, WebhookReply.TEXT, "AdmissionReview too large\n"));
        return;
      }
      send(exchange, decide(body));
    }
  }

  private WebhookReply decide(byte[] body) {
    try {
      return reviews.review(body);
    } catch (RuntimeException e) {
      // A bug of ours: say so to the API server rather than drop the connection.
      LOG.atError().setCause(e).log("admission review failed");
      return new WebhookReply(500, WebhookReply.TEXT, "admission review failed: " + e + "\n");
    }
  }

  private void healthz(HttpExchange exchange) throws IOException {
    try (exchange) {
      send(exchange, new WebhookReply(200, WebhookReply.TEXT, "ok\n"));
    }
  }

  private static void send(HttpExchange exchange, WebhookReply reply) throws IOException {
    byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", reply.contentType());
    exchange.sendResponseHeaders(reply.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
    LOG.info("admission webhook stopped");
  }
}
