package dev.tessera.plugin.metrics;

import dev.tessera.plugin.health.HealthObservation;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The XIDs the health monitor has seen since the plugin started, by device name (a lost GPU counts
 * as its XID 79). Fed on the health monitor's thread, read by the sampler's.
 */
public final class XidCounts {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  public void observe(HealthObservation observation) {
    switch (observation) {
      case HealthObservation.Xid xid -> count(xid.device());
      case HealthObservation.GpuLost lost -> count(lost.device());
      case HealthObservation.DoubleBitEcc ecc -> {} // counted by NVML's ECC counters
    }
  }

  private void count(String device) {
    counts.computeIfAbsent(device, d -> new LongAdder()).increment();
  }

  public Map<String, Long> snapshot() {
    var copy = new HashMap<String, Long>();
    counts.forEach((device, count) -> copy.put(device, count.sum()));
    return copy;
  }
}
