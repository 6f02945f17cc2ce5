package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.micrometer.core.instrument.Counter;
import java.util.Map;
import java.util.Objects;
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
  private final Counter reads;
  private final Map<String, Read> byName = new ConcurrentHashMap<>();

  /**
   * @param read reads a slice by name from the API server; null when there is none
   * @param reads counts those reads
   */
  SliceGenerations(Function<String, ResourceSlice> read, Counter reads) {
    this.read = read;
    this.reads = reads;
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
    if (known == null || !Objects.equals(known.resourceVersion(), version)) {
      reads.increment();
      ResourceSlice whole = read.apply(name);
      if (whole == null || whole.getSpec() == null || whole.getSpec().getPool() == null) {
        byName.remove(name);
        return null;
      }
      // Kept under the version read: a newer one than cached is looked up again once the cache
      // shows it (its event names the node again).
      known = new Read(whole.getMetadata().getResourceVersion(), whole.getSpec().getPool());
      byName.put(name, known);
    }
    var spec = new ResourceSliceSpec();
    spec.setPool(known.pool());
    var slice = new ResourceSlice();
    slice.setMetadata(cached.getMetadata());
    slice.setSpec(spec);
    return slice;
  }

  /** Forgets what was read of a slice once it changes or goes (an informer's handler). */
  ResourceEventHandler<ResourceSlice> forgetting() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ResourceSlice slice) {}

      @Override
      public void onUpdate(ResourceSlice before, ResourceSlice after) {
        byName.remove(after.getMetadata().getName());
      }

      @Override
      public void onDelete(ResourceSlice slice, boolean unknownFinalState) {
        byName.remove(slice.getMetadata().getName());
      }
    };
  }
}
