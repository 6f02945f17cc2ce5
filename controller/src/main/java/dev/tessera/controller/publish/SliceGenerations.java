package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The pool of the cached slices whose metadata does not say their generation: slices written before
 * the controller annotated them ({@link SlicePool}), found in the cache after an upgrade. A new
 * generation has to be numbered above the pool's current one, so each such slice is read whole once
 * per version; a pool that never changes again is not read at every resync.
 */
final class SliceGenerations {
  private record Read(String resourceVersion, ResourcePool pool) {}

  private final Function<String, ResourceSlice> read;
  private final Map<String, Read> byName = new ConcurrentHashMap<>();

  /**
   * @param read reads a slice by name from the API server; null when there is none
   */
  SliceGenerations(Function<String, ResourceSlice> read) {
    this.read = read;
  }

  /**
   * The cached slice, with its spec's pool where its metadata does not say the generation; null
   * when the slice is gone.
   */
  ResourceSlice complete(ResourceSlice cached) {
    if (SlicePool.generation(cached).isPresent()) {
      return cached;
    }
    String name = cached.getMetadata().getName();
    String version = cached.getMetadata().getResourceVersion();
    Read known = byName.get(name);
    if (known == null || !known.resourceVersion().equals(version)) {
      ResourceSlice whole = read.apply(name);
      if (whole == null || whole.getSpec() == null || whole.getSpec().getPool() == null) {
        byName.remove(name);
        return null;
      }
      known = new Read(version, whole.getSpec().getPool());
      byName.put(name, known);
    }
    var spec = new ResourceSliceSpec();
    spec.setPool(known.pool());
    var slice = new ResourceSlice();
    slice.setMetadata(cached.getMetadata());
    slice.setSpec(spec);
    return slice;
  }

  /** The slice changed or is gone: what was read of it no longer holds. */
  void forget(String name) {
    byName.remove(name);
  }
}
