package dev.tessera.cli.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassList;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The list GET against a stand-in API server on loopback: gzip, plain, 404, a refusal. */
class ListReaderTest {
  private static final String CLASSES =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"DeviceClassList","metadata":{},
       "items":[{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
                 "metadata":{"name":"gpu.tessera.dev"},
                 "spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.tessera.dev\\""}}]}}]}
      """;

  private HttpServer server;
  private HttpClient http;
  private ListReader reader;
  private final ConcurrentLinkedQueue<String> acceptedEncodings = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    answer("/gzip", 200, gzip(CLASSES), true);
    answer("/plain", 200, CLASSES.getBytes(StandardCharsets.UTF_8), false);
    answer(
        "/forbidden",
        403,
        """
        {"kind":"Status","apiVersion":"v1","status":"Failure","code":403,
         "message":"deviceclasses is forbidden: User \\"jane\\" cannot list"}
        """
            .getBytes(StandardCharsets.UTF_8),
        false);
    server.start();
    String master = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    http =
        new StoppingHttpClients()
            .newBuilder(new ConfigBuilder().withMasterUrl(master).build())
            .build();
    reader = new ListReader(http, master, new KubernetesSerialization(), Runnable::run);
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop(0);
  }

  @Test
  void asksForGzipAndDecodesAGzippedList() {
    Optional<DeviceClassList> list = reader.list("/gzip", DeviceClassList.class).join();

    assertThat(list.orElseThrow().getItems())
        .singleElement()
        .satisfies(c -> assertThat(c.getMetadata().getName()).isEqualTo("gpu.tessera.dev"));
    assertThat(acceptedEncodings).containsOnly("gzip");
  }

  @Test
  void decodesAPlainListWhenTheServerDoesNotCompress() {
    assertThat(reader.list("/plain", DeviceClassList.class).join().orElseThrow().getItems())
        .hasSize(1);
  }

  @Test
  void aResourceTheServerDoesNotServeIsEmpty() {
    assertThat(reader.list("/no-such-crd", DeviceClassList.class).join()).isEmpty();
  }

  @Test
  void aRefusalCarriesTheCodeAndTheApiServersMessage() {
    assertThatThrownBy(() -> read("/forbidden"))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("GET /forbidden answered 403")
        .hasMessageContaining("cannot list")
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
  }

  @Test
  void anUnreachableServerIsNamed() throws IOException {
    int port;
    try (var socket = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    String master = "http://127.0.0.1:" + port;
    try (HttpClient closed =
        new StoppingHttpClients()
            .newBuilder(
                new ConfigBuilder().withMasterUrl(master).withRequestRetryBackoffLimit(0).build())
            .build()) {
      var unreachable =
          new ListReader(closed, master, new KubernetesSerialization(), Runnable::run);
      assertThatThrownBy(
              () -> {
                try {
                  unreachable.list("/plain", DeviceClassList.class).join();
                } catch (CompletionException e) {
                  throw unreachable.cause(e);
                }
              })
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageStartingWith("cannot reach " + master);
    }
  }

  private Object read(String path) {
    try {
      return reader.list(path, DeviceClassList.class).join();
    } catch (CompletionException e) {
      throw reader.cause(e);
    }
  }

  private void answer(String path, int code, byte[] body, boolean gzipped) {
    server.createContext(
        path,
        exchange -> {
          String encoding = exchange.getRequestHeaders().getFirst("Accept-Encoding");
          acceptedEncodings.add(encoding == null ? "" : encoding);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          if (gzipped) {
            exchange.getResponseHeaders().set("Content-Encoding", "gzip");
          }
          exchange.sendResponseHeaders(code, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
          exchange.close();
        });
  }

  private static byte[] gzip(String text) throws IOException {
    var buffer = new ByteArrayOutputStream();
    try (var gzip = new GZIPOutputStream(buffer)) {
      gzip.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return buffer.toByteArray();
  }
}
