package dev.tessera.cli.kube;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.cli.core.Snapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a {@link Snapshot} from the API server: the driver's ResourceSlices (by field selector, so
 * other drivers' slices never travel), all ResourceClaims, the DeviceClasses and the GpuNodes, the
 * four lists at once. The only class that talks to the cluster.
 */
public final class ApiServerSnapshot {
  private static final ResourceDefinitionContext GPU_NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GpuNodeNames.GROUP)
          .withVersion(GpuNodeNames.VERSION)
          .withKind(GpuNodeNames.KIND)
          .withPlural(GpuNodeNames.PLURAL)
          .withNamespaced(false)
          .build();

  private final KubernetesClient client;

  public ApiServerSnapshot(KubernetesClient client) {
    this.client = client;
  }

  public Snapshot read(String driver) {
    var dra = client.dynamicResourceAllocation().v1();
    CompletableFuture<List<ResourceSlice>> slices =
        CompletableFuture.supplyAsync(
            () -> dra.resourcesSlices().withField("spec.driver", driver).list().getItems());
    CompletableFuture<List<ResourceClaim>> claims =
        CompletableFuture.supplyAsync(
            () -> dra.resourceClaims().inAnyNamespace().list().getItems());
    CompletableFuture<List<DeviceClass>> classes =
        CompletableFuture.supplyAsync(() -> dra.deviceClasses().list().getItems());
    CompletableFuture<Map<String, Map<String, List<String>>>> health =
        CompletableFuture.supplyAsync(this::health);
    return new Snapshot(driver, slices.join(), claims.join(), classes.join(), health.join());
  }

  /**
   * Each GpuNode's {@code status.health.devices[]}: device name and problems as {@code key=value}.
   * A cluster without the CRD (or a node without status) has no problems to show.
   */
  private Map<String, Map<String, List<String>>> health() {
    var health = new LinkedHashMap<String, Map<String, List<String>>>();
    List<GenericKubernetesResource> nodes;
    try {
      nodes = client.genericKubernetesResources(GPU_NODES).list().getItems();
    } catch (RuntimeException e) {
      return health;
    }
    for (GenericKubernetesResource node : nodes) {
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
