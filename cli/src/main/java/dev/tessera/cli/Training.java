package dev.tessera.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.tessera.api.GpuNodeNames;
import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cli.core.Snapshot;
import dev.tessera.cli.kube.ApiServerSnapshot;
import dev.tessera.cli.kube.Decoding;
import dev.tessera.cli.nodes.NodeRows;
import dev.tessera.cli.nodes.TableText;
import dev.tessera.cli.why.Why;
import dev.tessera.cli.why.WhyText;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * {@code kubectl-tessera train}, run once by the install: the work of a real call against a
 * stand-in API server on loopback (the built-in lists of {@link Decoding} served gzip'd, with a
 * GpuNode, read through the same {@link ApiServerSnapshot}, then the analysis and the rendering),
 * so the class cache made of this run holds what a real call loads.
 */
final class Training {
  private static final String DRIVER = "gpu.tessera.dev";

  private Training() {}

  static int run(PrintStream out) throws Exception {
    var decoding = new Decoding();
    decoding.warmUp();
    var nodes = new GenericKubernetesResourceList();
    nodes.setItems(List.of(trainNode()));

    String keystore = System.getenv("TESSERA_TRAIN_KEYSTORE");
    HttpServer server = server(keystore);
    serve(server, "/apis/resource.k8s.io/v1/resourceslices", Decoding.text(Decoding.SLICES));
    serve(server, "/apis/resource.k8s.io/v1/resourceclaims", Decoding.text(Decoding.CLAIMS));
    serve(server, "/apis/resource.k8s.io/v1/deviceclasses", Decoding.text(Decoding.CLASSES));
    serve(
        server,
        "/apis/" + GpuNodeNames.GROUP + "/" + GpuNodeNames.VERSION + "/" + GpuNodeNames.PLURAL,
        new KubernetesSerialization().asJson(nodes));
    server.start();
    try (ApiServerSnapshot cluster =
        new ApiServerSnapshot(
            new ConfigBuilder()
                .withMasterUrl(
                    (keystore == null ? "http" : "https")
                        + "://127.0.0.1:"
                        + server.getAddress().getPort())
                .withTrustCerts(true)
                .withRequestRetryBackoffLimit(0)
                .build(),
            decoding)) {
      Snapshot snapshot = cluster.read(DRIVER);
      String table = TableText.render(NodeRows.of(snapshot, true));
      var why = new Why(snapshot, new DeviceSelectors());
      var text = new StringBuilder(table);
      snapshot.claims().forEach(c -> text.append(WhyText.render(why.explain(c))));
      out.printf(
          "trained on %d slices, %d claims and %d characters of output%n",
          snapshot.slices().size(), snapshot.claims().size(), text.length());
      return snapshot.slices().isEmpty() ? 1 : 0;
    } finally {
      server.stop(0);
    }
  }

  /**
   * Over TLS when the install made a key ({@code TESSERA_TRAIN_KEYSTORE}: a PKCS12 file, password
   * {@code training}), so the handshake's classes are in the cache too: in a real call they are a
   * quarter of the time to the first answer.
   */
  private static HttpServer server(String keystore) throws Exception {
    var loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    if (keystore == null) {
      return HttpServer.create(loopback, 0);
    }
    char[] password = "training".toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(Path.of(keystore))) {
      keys.load(in, password);
    }
    KeyManagerFactory managers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    managers.init(keys, password);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(managers.getKeyManagers(), null, null);
    HttpsServer server = HttpsServer.create(loopback, 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    return server;
  }

  /** A GpuNode whose plugin reports one XID, so the health path is loaded too. */
  private static GenericKubernetesResource trainNode() {
    var node = new GenericKubernetesResource();
    node.setApiVersion(GpuNodeNames.GROUP + "/" + GpuNodeNames.VERSION);
    node.setKind(GpuNodeNames.KIND);
    node.setMetadata(new ObjectMetaBuilder().withName("train").build());
    node.setAdditionalProperty(
        "status",
        Map.of(
            "health",
            Map.of(
                "devices",
                List.of(
                    Map.of(
                        "device",
                        "gpu-0",
                        "problems",
                        List.of(Map.of("key", DRIVER + "/xid", "value", "79")))))));
    return node;
  }

  /** Answers every GET under {@code path} with {@code body}, gzip'd as the API server does. */
  private static void serve(HttpServer server, String path, String body) {
    server.createContext(
        path,
        exchange -> {
          try (HttpExchange e = exchange) {
            byte[] gzipped = gzip(body.getBytes(StandardCharsets.UTF_8));
            e.getResponseHeaders().set("Content-Type", "application/json");
            e.getResponseHeaders().set("Content-Encoding", "gzip");
            e.sendResponseHeaders(200, gzipped.length);
            try (OutputStream response = e.getResponseBody()) {
              response.write(gzipped);
            }
          }
        });
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    var buffer = new ByteArrayOutputStream();
    try (var gzip = new GZIPOutputStream(buffer)) {
      gzip.write(bytes);
    }
    return buffer.toByteArray();
  }
}
