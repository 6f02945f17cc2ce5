package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creates (POST) or replaces (PUT) a ResourceSlice whole through the client's HTTP client, and
 * reads of the answer only its status. fabric8's DSL parses every answer into a model object: a
 * mig-dynamic slice is ~90 KiB, and the controller, which keeps only slices' metadata and learns of
 * its writes from its watch, never reads the object it gets back. The client still gives the TLS
 * context, the credentials and the retries of 5xx answers of the kubeconfig.
 */
final class SliceRequests {
  private static final String PATH = "apis/resource.k8s.io/v1/resourceslices";

  /** As long as fabric8's own request timeout: a write that hangs fails, the queue retries it. */
  private static final long TIMEOUT_SECONDS = 30;

  private final HttpClient http;
  private final String collection;
  private final KubernetesSerialization json;

  SliceRequests(KubernetesClient client) {
    this.http = client.getHttpClient();
    String master = client.getMasterUrl().toString();
    this.collection = (master.endsWith("/") ? master : master + "/") + PATH;
    this.json = client.getKubernetesSerialization();
  }

  /** Creates the slice; a {@link KubernetesClientException} with the API server's status if not. */
  void create(ResourceSlice slice) {
    send("POST", collection, slice);
  }

  /** Replaces the slice of its name, against the resourceVersion it carries. */
  void replace(ResourceSlice slice) {
    send("PUT", collection + "/" + slice.getMetadata().getName(), slice);
  }

  private void send(String method, String url, ResourceSlice slice) {
    byte[] body = json.asJson(slice).getBytes(StandardCharsets.UTF_8);
    var request =
        http.newHttpRequestBuilder()
            .uri(url)
            .header("Accept", "application/json")
            .method(method, "application/json", new ByteArrayInputStream(body), (long) body.length)
            .build();
    HttpResponse<byte[]> response;
    try {
      response = http.sendAsync(request, byte[].class).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException(method + " " + url + " interrupted", e);
    } catch (ExecutionException | CompletionException | TimeoutException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof KubernetesClientException k) {
        throw k;
      }
      throw new KubernetesClientException(method + " " + url + " failed: " + cause, cause);
    }
    if (!response.isSuccessful()) {
      throw refused(method, url, response);
    }
  }

  /** The API server's refusal as fabric8 reports one: its code, and its Status when it sent one. */
  private KubernetesClientException refused(
      String method, String url, HttpResponse<byte[]> response) {
    Status status = null;
    if (response.body() != null && response.body().length > 0) {
      try {
        status = json.unmarshal(new ByteArrayInputStream(response.body()), Status.class);
      } catch (RuntimeException e) {
        status = null; // not a Status (a proxy's page, say): the code is what is known
      }
    }
    String message =
        status == null || status.getMessage() == null ? "" : ": " + status.getMessage();
    return new KubernetesClientException(
        method + " " + url + " answered " + response.code() + message, response.code(), status);
  }
}
