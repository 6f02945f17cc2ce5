package dev.tessera.controller.publish;

import dev.tessera.controller.render.DesiredSlice;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a node's desired slice contents into the ResourceSlice objects of its pool (pure): one pool
 * per node, named after it; every slice of a generation says how many slices the generation has, so
 * consumers only trust a complete pool; the Node owns the slices, so they go with it. Each slice
 * carries the digest of its content ({@link SliceContentHash}) and its pool and generation again as
 * annotations ({@link SlicePool}: the controller caches slices' metadata only).
 */
public final class PoolSlices {
  private final String driverName;
  private final SliceContentHash hash = new SliceContentHash();

  public PoolSlices(String driverName) {
    this.driverName = driverName;
  }

  /**
   * The name of the pool's {@code index}th slice: stable, so an update replaces the same object.
   */
  public String sliceName(String nodeName, int index) {
    return "%s-%s-%05d".formatted(nodeName, driverName, index);
  }

  /**
   * Built with setters rather than fabric8's builders: a builder deep-copies every device, and the
   * controller builds every pool on every resync only to find (almost always) nothing changed. The
   * slices share the desired devices, which nobody mutates.
   */
  public List<ResourceSlice> slices(
      String nodeName, String nodeUid, long generation, List<DesiredSlice> contents) {
    var slices = new ArrayList<ResourceSlice>();
    for (int i = 0; i < contents.size(); i++) {
      var pool = new ResourcePool();
      pool.setName(nodeName);
      pool.setGeneration(generation);
      pool.setResourceSliceCount((long) contents.size());
      var spec = new ResourceSliceSpec();
      spec.setDriver(driverName);
      spec.setNodeName(nodeName);
      spec.setPool(pool);
      switch (contents.get(i)) {
        case DesiredSlice.Devices d -> spec.setDevices(d.devices());
        case DesiredSlice.Counters c -> spec.setSharedCounters(c.counterSets());
      }
      var owner = new OwnerReference();
      owner.setApiVersion("v1");
      owner.setKind("Node");
      owner.setName(nodeName);
      owner.setUid(nodeUid);
      owner.setController(true);
      var metadata = new ObjectMeta();
      metadata.setName(sliceName(nodeName, i));
      metadata.setOwnerReferences(List.of(owner));
      var slice = new ResourceSlice();
      slice.setApiVersion("resource.k8s.io/v1");
      slice.setKind("ResourceSlice");
      slice.setMetadata(metadata);
      slice.setSpec(spec);
      metadata.setAnnotations(
          Map.of(
              SliceContentHash.ANNOTATION,
              hash.of(slice),
              SlicePool.POOL,
              nodeName,
              SlicePool.GENERATION,
              Long.toString(generation)));
      slices.add(slice);
    }
    return slices;
  }
}
