package dev.tessera.cli.kube;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.zip.GZIPInputStream;

/**
 * GETs one list from the API server and decodes it, for a process that lives for one answer.
 *
 * <p>Why not the client's DSL: on 100 nodes a list of slices is ~0.6 MB of JSON and the claims ~0.5
 * MB; asked for gzip the API server sends ~30 KB of each, which a freshly started JVM decrypts far
 * faster (its TLS code is not compiled yet). The body is decoded on {@code decoding}, so the slices
 * and the claims decode on two cores at once. The client still gives the TLS context and the
 * credentials (token, client certificate, exec plugin) of the kubeconfig.
 */
final class ListReader {
  private final HttpClient http;
  private final String master;
  private final KubernetesSerialization json;
  private final Executor decoding;

  ListReader(HttpClient http, String master, KubernetesSerialization json, Executor decoding) {
    this.http = http;
    this.master = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    this.json = json;
    this.decoding = decoding;
  }

  /**
   * The list at {@code path} (from the API root, with its query), or empty when the API server does
   * not serve that resource (404: a cluster without the CRD).
   */
  <L> CompletableFuture<Optional<L>> list(String path, Class<L> type) {
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(master + path)
            .header("Accept", "application/json")
            .header("Accept-Encoding", "gzip")
            .build();
    return http.sendAsync(request, byte[].class)
        .thenApplyAsync(response -> decode(path, response, type), decoding);
  }

  private <L> Optional<L> decode(String path, HttpResponse<byte[]> response, Class<L> type) {
    try (InputStream body = body(response)) {
      if (response.code() == 404) {
        return Optional.empty();
      }
      if (response.code() != 200) {
        throw refused(path, response.code(), body);
      }
      return Optional.of(json.unmarshal(body, type));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the answer to GET " + path, e);
    }
  }

  private static InputStream body(HttpResponse<byte[]> response) throws IOException {
    InputStream raw =
        new ByteArrayInputStream(response.body() == null ? new byte[0] : response.body());
    String encoding = response.header("Content-Encoding");
    return encoding != null && encoding.equalsIgnoreCase("gzip") ? new GZIPInputStream(raw) : raw;
  }

  private KubernetesClientException refused(String path, int code, InputStream body) {
    String message;
    try {
      message = json.unmarshal(body, Status.class).getMessage();
    } catch (RuntimeException e) {
      message = null;
    }
    return new KubernetesClientException(
        "GET " + path + " answered " + code + (message == null ? "" : ": " + message), code, null);
  }

  /** What a failed list throws: the API server's own error, or the failure to reach it. */
  RuntimeException cause(CompletionException e) {
    Throwable cause = e.getCause() == null ? e : e.getCause();
    if (cause instanceof KubernetesClientException k) {
      return k;
    }
    return new KubernetesClientException(
        "cannot reach "
            + master
            + ": "
            + (cause.getMessage() == null ? cause.toString() : cause.getMessage()),
        cause);
  }
}
