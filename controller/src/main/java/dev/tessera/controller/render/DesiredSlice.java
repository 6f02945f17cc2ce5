package dev.tessera.controller.render;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.List;

/**
 * The content of one ResourceSlice of a node's pool. Since Kubernetes 1.35 a slice holds either
 * devices or shared counters, never both.
 */
public sealed interface DesiredSlice {

  record Devices(List<Device> devices) implements DesiredSlice {
    public Devices {
      devices = List.copyOf(devices);
    }
  }

  record Counters(List<CounterSet> counterSets) implements DesiredSlice {
    public Counters {
      counterSets = List.copyOf(counterSets);
    }
  }
}
