package dev.tessera.controller.config;

import dev.tessera.controller.publish.LoopbackCertificate;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.StreamResetException;
import io.vertx.core.net.KeyStoreOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An API server on loopback that speaks HTTP/2 over TLS, as a real one does to the controller
 * (ALPN; HTTP/1.1 only to a client that offers nothing else), and answers a ConfigMap named {@code
 * stalled} with its headers and the first bytes of its body, and then nothing more: the stream
 * stays open, the connection goes on serving other streams. Any other ConfigMap is answered whole.
 * It records each request's protocol and connection, and the streams the client reset (RST_STREAM)
 * with their error code.
 */
final class Http2StallingServer implements AutoCloseable {
  /** What the JDK's client resets a stream it no longer wants with (RFC 9113, CANCEL). */
  static final long CANCEL = 0x8;

  /** A request as the server saw it: its path, protocol and connection (by order of opening). */
  record Request(String path, HttpVersion version, int connection) {}

  /** A stream the client reset: the request's path, and the error code it gave. */
  record Reset(String path, long code) {}

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final Map<HttpConnection, Integer> connections = new ConcurrentHashMap<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final List<Reset> resets = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> stalledAnswerBegun = new CompletableFuture<>();

  Http2StallingServer(LoopbackCertificate certificate) throws Exception {
    server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setSsl(true)
                .setUseAlpn(true)
                .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
                .setKeyCertOptions(
                    new KeyStoreOptions()
                        .setType("PKCS12")
                        .setPath(certificate.store().toString())
                        .setPassword(certificate.password())));
    server.connectionHandler(connection -> connections.put(connection, connections.size() + 1));
    server.requestHandler(this::answer);
    server
        .listen(0, "127.0.0.1")
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private void answer(HttpServerRequest request) {
    String path = request.path();
    requests.add(new Request(path, request.version(), connections.get(request.connection())));
    var response = request.response().putHeader("content-type", "application/json");
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (!name.equals("stalled")) {
      response.end(
          """
          {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"%s","namespace":"it"}}"""
              .formatted(name));
      return;
    }
    response.exceptionHandler(
        failed -> {
          if (failed instanceof StreamResetException reset) {
            resets.add(new Reset(path, reset.getCode()));
          }
        });
    // A body announced whole and sent in part: the client waits for the rest.
    response
        .putHeader("content-length", "100000")
        .write("{\"kind\":\"ConfigMap\",")
        .onComplete(written -> stalledAnswerBegun.complete(null));
  }

  String url() {
    return "https://127.0.0.1:" + server.actualPort();
  }

  /** Waits until the stalled answer's headers and first bytes have gone out. */
  void awaitStalledAnswer() throws Exception {
    stalledAnswerBegun.get(30, TimeUnit.SECONDS);
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  List<Reset> resetByClient() {
    return List.copyOf(resets);
  }

  int connections() {
    return connections.size();
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
