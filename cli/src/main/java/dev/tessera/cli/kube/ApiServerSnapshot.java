package dev.tessera.cli.kube;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.cli.core.Snapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Reads a {@link Snapshot} from the API server: the driver's ResourceSlices (by field selector, so
 * other drivers' slices never travel), all ResourceClaims, the DeviceClasses and the GpuNodes, the
 * four lists at once. The only class that talks to the cluster.
 */
public final class ApiServerSnapshot implements AutoCloseable {
  private final HttpClient http;
  private final ExecutorService decoders;
  private final ListReader lists;

  /**
   * Connects as the kubeconfig's {@code config} says (TLS, credentials, proxy); decodes with {@code
   * decoding}'s mapper (warmed, or being warmed, by the caller).
   */
  public ApiServerSnapshot(Config config, Decoding decoding) {
    this.http = new StoppingHttpClients().newBuilder(config).build();
    // Two decoders, one per core: the slices and the claims are the two large lists.
    this.decoders =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread thread = new Thread(r, "decode");
              thread.setDaemon(true);
              return thread;
            });
    this.lists = new ListReader(http, config.getMasterUrl(), decoding.json(), decoders);
  }

  public Snapshot read(String driver) {
    CompletableFuture<Optional<DeviceClassList>> classes =
        lists.list("/apis/resource.k8s.io/v1/deviceclasses", DeviceClassList.class);
    CompletableFuture<Optional<ResourceSliceList>> slices =
        lists.list(
            "/apis/resource.k8s.io/v1/resourceslices?fieldSelector="
                + URLEncoder.encode("spec.driver=" + driver, StandardCharsets.UTF_8),
            ResourceSliceList.class);
    CompletableFuture<Optional<ResourceClaimList>> claims =
        lists.list("/apis/resource.k8s.io/v1/resourceclaims", ResourceClaimList.class);
    CompletableFuture<Optional<GenericKubernetesResourceList>> nodes =
        lists.list(
            "/apis/" + GpuNodeNames.GROUP + "/" + GpuNodeNames.VERSION + "/" + GpuNodeNames.PLURAL,
            GenericKubernetesResourceList.class);
    try {
      return new Snapshot(
          driver,
          slices.join().map(ResourceSliceList::getItems).orElse(List.of()),
          claims.join().map(ResourceClaimList::getItems).orElse(List.of()),
          classes.join().map(DeviceClassList::getItems).orElse(List.of()),
          health(nodes.exceptionally(e -> Optional.empty()).join()));
    } catch (CompletionException e) {
      throw lists.cause(e);
    }
  }

  @Override
  public void close() {
    decoders.shutdownNow();
    http.close();
  }

  /**
   * Each GpuNode's {@code status.health.devices[]}: device name and problems as {@code key=value}.
   * A cluster without the CRD (or a node without status) has no problems to show.
   */
  private static Map<String, Map<String, List<String>>> health(
      Optional<GenericKubernetesResourceList> list) {
    var health = new LinkedHashMap<String, Map<String, List<String>>>();
    for (GenericKubernetesResource node :
        list.map(GenericKubernetesResourceList::getItems).orElse(List.of())) {
      var byDevice = new LinkedHashMap<String, List<String>>();
      for (Object device :
          list(path(node.getAdditionalProperties(), "status", "health", "devices"))) {
        if (!(device instanceof Map<?, ?> d) || !(d.get("device") instanceof String name)) {
          continue;
        }
        var problems = new ArrayList<String>();
        for (Object problem : list(d.get("problems"))) {
          if (problem instanceof Map<?, ?> p && p.get("key") != null) {
            Object value = p.get("value");
            problems.add(
                p.get("key") + (value == null || value.toString().isEmpty() ? "" : "=" + value));
          }
        }
        byDevice.put(name, problems);
      }
      health.put(node.getMetadata().getName(), byDevice);
    }
    return health;
  }

  private static Object path(Map<String, Object> root, String... keys) {
    Object at = root;
    for (String key : keys) {
      if (!(at instanceof Map<?, ?> map)) {
        return null;
      }
      at = map.get(key);
    }
    return at;
  }

  private static List<?> list(Object value) {
    return value instanceof List<?> l ? l : List.of();
  }
}
