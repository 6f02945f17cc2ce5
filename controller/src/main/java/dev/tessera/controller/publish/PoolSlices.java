package dev.tessera.controller.publish;

import dev.tessera.controller.render.DesiredSlice;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a node's desired slice contents into the ResourceSlice objects of its pool (pure): one pool
 * per node, named after it; every slice of a generation says how many slices the generation has, so
 * consumers only trust a complete pool; the Node owns the slices, so they go with it.
 */
public final class PoolSlices {
  private final String driverName;

  public PoolSlices(String driverName) {
    this.driverName = driverName;
  }

  /**
   * The name of the pool's {@code index}th slice: stable, so an update replaces the same object.
   */
  public String sliceName(String nodeName, int index) {
    return "%s-%s-%05d".formatted(nodeName, driverName, index);
  }

  public List<ResourceSlice> slices(
      String nodeName, String nodeUid, long generation, List<DesiredSlice> contents) {
    var slices = new ArrayList<ResourceSlice>();
    for (int i = 0; i < contents.size(); i++) {
      var spec =
          new ResourceSliceSpecBuilder()
              .withDriver(driverName)
              .withNodeName(nodeName)
              .withNewPool()
              .withName(nodeName)
              .withGeneration(generation)
              .withResourceSliceCount((long) contents.size())
              .endPool();
      switch (contents.get(i)) {
        case DesiredSlice.Devices d -> spec.withDevices(d.devices());
        case DesiredSlice.Counters c -> spec.withSharedCounters(c.counterSets());
      }
      slices.add(
          new ResourceSliceBuilder()
              .withNewMetadata()
              .withName(sliceName(nodeName, i))
              .withOwnerReferences(
                  new OwnerReferenceBuilder()
                      .withApiVersion("v1")
                      .withKind("Node")
                      .withName(nodeName)
                      .withUid(nodeUid)
                      .withController(true)
                      .build())
              .endMetadata()
              .withSpec(spec.build())
              .build());
    }
    return slices;
  }
}
