package dev.tessera.controller.publish;

import dev.tessera.controller.calls.CallAnswers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A client of its own, with the controller's configuration, that asks the API server for the
 * metadata only ({@code as=PartialObjectMetadata}, as client-go's metadata clients do) of two
 * resources:
 *
 * <ul>
 *   <li>ResourceSlices: in the informer's list and watch, in a slice's read, and in the answer to a
 *       slice's create or replace. Through it the controller reads a slice's name, version, owners
 *       and annotations, never its spec (only {@link SliceGenerations} reads a spec, through the
 *       controller's own client); a slice of a {@code mig-dynamic} node is ~90 KiB, which the API
 *       server would otherwise serialize, and the controller parse, again for every slice it
 *       writes, only to drop it.
 *   <li>Nodes, in the informer's list and watch: the controller reads a Node's labels and UID. A
 *       kubelet's Node carries its status (conditions, capacity, addresses, the images on the
 *       node), which a fleet's start would otherwise decrypt and parse for every node, and every
 *       status update of every node after it (docs/benchmarks.md, decision 55).
 * </ul>
 *
 * fabric8 reads each such answer into a {@code ResourceSlice} or {@code Node} whose spec and status
 * are null. A refusal is a {@code Status} as before.
 */
final class MetadataClient implements AutoCloseable {
  private static final String ONE = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
  private static final String LIST =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

  /**
   * The slices' collection, or one slice by name (not a subresource of it), below whatever path the
   * server's URL has (a proxy's).
   */
  private static final Pattern SLICES =
      Pattern.compile(".*/apis/resource\\.k8s\\.io/[^/]+/resourceslices(/[^/]+)?");

  /** The Nodes' collection, or one Node by name (not its status, proxy or other subresource). */
  private static final Pattern NODES = Pattern.compile(".*/api/v1/nodes(/[^/]+)?");

  private static final Interceptor ACCEPT_METADATA =
      new Interceptor() {
        @Override
        public void before(
            BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
          accept(request.method(), request.uri())
              .ifPresent(accept -> builder.setHeader("Accept", accept));
        }
      };

  private final KubernetesClient client;

  /**
   * A client with {@code client}'s configuration and serialization; {@code answers} ties its
   * requests' answers to the calls under way, so that a given-up read or write is cancelled.
   */
  MetadataClient(KubernetesClient client, CallAnswers answers) {
    this.client =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withKubernetesSerialization(client.getKubernetesSerialization())
            .withHttpClientBuilderConsumer(
                b ->
                    b.addOrReplaceInterceptor("tessera-metadata-only", ACCEPT_METADATA)
                        .addOrReplaceInterceptor(CallAnswers.NAME, answers))
            .build();
  }

  /**
   * What a request accepts: a list the list form; a watch's events, a slice read, created or
   * replaced single objects; a Node's list, watch or read likewise. Nothing else is changed: a
   * delete (its answer is a {@code Status} or the object, as the API server chooses), a write to a
   * Node, another resource, an auth exchange.
   */
  static Optional<String> accept(String method, URI request) {
    String path = request.getPath();
    if (path == null) {
      return Optional.empty();
    }
    var slices = SLICES.matcher(path);
    if (slices.matches()) {
      boolean named = slices.group(1) != null;
      return switch (method) {
        case "GET" -> Optional.of(named || watch(request) ? ONE : LIST);
        case "POST" -> named ? Optional.empty() : Optional.of(ONE);
        case "PUT" -> named ? Optional.of(ONE) : Optional.empty();
        default -> Optional.empty();
      };
    }
    var nodes = NODES.matcher(path);
    if (nodes.matches() && method.equals("GET")) {
      return Optional.of(nodes.group(1) != null || watch(request) ? ONE : LIST);
    }
    return Optional.empty();
  }

  private static boolean watch(URI request) {
    return request.getRawQuery() != null
        && Arrays.asList(request.getRawQuery().split("&")).contains("watch=true");
  }

  /** The client that asks for slices' and Nodes' metadata (every other request of it as usual). */
  KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
  }
}
