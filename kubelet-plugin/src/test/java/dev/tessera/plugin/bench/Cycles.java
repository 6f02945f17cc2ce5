package dev.tessera.plugin.bench;

import dev.tessera.plugin.it.KubeletClient;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

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

  /** Sorted prepare and unprepare times of the measured cycles, and their rate. */
  record Measured(long[] prepares, long[] unprepares, double cyclesPerSecond) {}

  /**
   * Warms up with {@code warmup} cycles, then measures {@code cycles}, going round the claims in
   * turn.
   */
  static Measured measure(
      KubeletClient kubelet, List<ResourceClaim> claims, int warmup, int cycles) {
    for (int i = 0; i < warmup; i++) {
      cycle(kubelet, claims.get(i % claims.size()), new long[1], new long[1], 0);
    }
    long[] prepares = new long[cycles];
    long[] unprepares = new long[cycles];
    long start = System.nanoTime();
    for (int i = 0; i < cycles; i++) {
      cycle(kubelet, claims.get(i % claims.size()), prepares, unprepares, i);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(prepares);
    Arrays.sort(unprepares);
    return new Measured(prepares, unprepares, cycles / seconds);
  }

  /** The Markdown table of a measurement: latencies of {@code what}, then the rate. */
  static void print(String what, Measured m) {
    System.out.printf(Locale.ROOT, "%n| figure | value |%n|---|---|%n");
    System.out.printf(
        Locale.ROOT,
        "| %s prepare p50 / p90 / p99 | %.2f / %.2f / %.2f ms |%n",
        what,
        pct(m.prepares(), 50),
        pct(m.prepares(), 90),
        pct(m.prepares(), 99));
    System.out.printf(
        Locale.ROOT,
        "| %s unprepare p50 / p90 / p99 | %.2f / %.2f / %.2f ms |%n",
        what,
        pct(m.unprepares(), 50),
        pct(m.unprepares(), 90),
        pct(m.unprepares(), 99));
    System.out.printf(Locale.ROOT, "| cycles/s | %.0f |%n", m.cyclesPerSecond());
  }

  /** The {@code percentile}th of sorted nanoseconds, in milliseconds (nearest rank). */
  static double pct(long[] sorted, int percentile) {
    int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, index)] / 1e6;
  }
}
