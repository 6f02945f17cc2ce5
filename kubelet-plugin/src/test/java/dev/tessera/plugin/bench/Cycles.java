package dev.tessera.plugin.bench;

import dev.tessera.plugin.it.KubeletClient;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

/** What the plugin benchmarks share: one timed prepare/unprepare cycle, and percentiles. */
final class Cycles {
  private Cycles() {}

  /** Prepares then unprepares one claim, recording each call's nanoseconds at {@code i}. */
  static void cycle(
      KubeletClient kubelet, ResourceClaim claim, long[] prepares, long[] unprepares, int i) {
    String uid = claim.getMetadata().getUid();
    long t = System.nanoTime();
    String error = kubelet.prepare(claim).get(uid).getError();
    prepares[i] = System.nanoTime() - t;
    if (!error.isEmpty()) {
      throw new IllegalStateException("prepare failed: " + error);
    }
    t = System.nanoTime();
    error = kubelet.unprepare(claim);
    unprepares[i] = System.nanoTime() - t;
    if (!error.isEmpty()) {
      throw new IllegalStateException("unprepare failed: " + error);
    }
  }

  /** The {@code percentile}th of sorted nanoseconds, in milliseconds (nearest rank). */
  static double pct(long[] sorted, int percentile) {
    int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, index)] / 1e6;
  }
}
