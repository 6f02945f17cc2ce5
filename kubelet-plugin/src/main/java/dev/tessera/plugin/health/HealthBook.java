package dev.tessera.plugin.health;

import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.HealthTaintKeys;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The node's device problems (pure; the caller serializes access). A problem is one taint: its
 * identity is (device, key, effect), so a critical XID and an informational one on the same GPU are
 * two taints. NVML never says that a device got well again, so a problem is cleared once it has not
 * been seen for {@code recoverAfter} and the device answers NVML again — a GPU that keeps failing
 * stays tainted, one that failed once does not stay out of service forever.
 */
public final class HealthBook {
  private record Key(String device, String key, TaintEffect effect) {}

  private final XidPolicy xids;
  private final Duration recoverAfter;
  private final Map<Key, DeviceProblem> problems = new LinkedHashMap<>();

  public HealthBook(XidPolicy xids, Duration recoverAfter) {
    this.xids = xids;
    this.recoverAfter = recoverAfter;
  }

  /** Records an observation; returns whether the node's health changed (not just a timestamp). */
  public boolean observe(HealthObservation observation, Instant now) {
    DeviceProblem seen = problemFor(observation, now);
    var key = new Key(observation.device(), seen.key(), seen.effect());
    DeviceProblem before = problems.get(key);
    if (before == null) {
      problems.put(key, seen);
      return true;
    }
    problems.put(
        key,
        new DeviceProblem(
            seen.key(), seen.value(), seen.effect(), seen.message(), before.since(), now));
    return !before.value().equals(seen.value());
  }

  /**
   * Clears the problems not seen for {@code recoverAfter} on devices that answer; returns whether
   * any was cleared.
   */
  public boolean recover(Instant now, Predicate<String> deviceAnswers) {
    var quietSince = now.minus(recoverAfter);
    var cleared = new ArrayList<Key>();
    var answers = new LinkedHashMap<String, Boolean>();
    problems.forEach(
        (key, problem) -> {
          if (!problem.lastSeen().isAfter(quietSince)
              && answers.computeIfAbsent(key.device(), deviceAnswers::test)) {
            cleared.add(key);
          }
        });
    cleared.forEach(problems::remove);
    return !cleared.isEmpty();
  }

  public NodeHealth snapshot() {
    var byDevice = new LinkedHashMap<String, List<DeviceProblem>>();
    problems.forEach(
        (key, problem) ->
            byDevice.computeIfAbsent(key.device(), d -> new ArrayList<>()).add(problem));
    return new NodeHealth(
        byDevice.entrySet().stream()
            .sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
            .map(e -> new DeviceHealth(e.getKey(), e.getValue()))
            .toList());
  }

  private DeviceProblem problemFor(HealthObservation observation, Instant now) {
    return switch (observation) {
      case HealthObservation.Xid xid ->
          new DeviceProblem(
              HealthTaintKeys.XID,
              Long.toString(xid.xid()),
              xids.effectOf(xid.xid()),
              "XID " + xid.xid() + " reported by NVML",
              now,
              now);
      case HealthObservation.DoubleBitEcc ecc ->
          new DeviceProblem(
              HealthTaintKeys.ECC,
              "double-bit",
              TaintEffect.NO_SCHEDULE,
              "uncorrectable (double-bit) ECC error reported by NVML",
              now,
              now);
      case HealthObservation.GpuLost lost ->
          new DeviceProblem(
              HealthTaintKeys.GPU_LOST,
              "",
              TaintEffect.NO_SCHEDULE,
              "the GPU fell off the bus (XID 79) or stopped answering NVML",
              now,
              now);
    };
  }
}
