package dev.tessera.plugin.prepare;

import dev.tessera.api.DeviceAttributeNames;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.config.Sharing;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Turns the capacity the scheduler counted out of a {@code shared} GPU for a claim into limits that
 * hold: the claim's device is shared through MPS with a pinned device memory limit equal to the
 * memory it consumed, and an active thread percentage equal to its compute share when it asked for
 * one. NVIDIA's driver only counts such shares; a counted share that is not enforced lets one claim
 * take the memory another was promised.
 */
final class ConsumedShare {
  private ConsumedShare() {}

  /**
   * The config with the consumed capacity enforced. A config that asks for MPS keeps its own limits
   * where they are lower; one that asks for time-slicing is left as it is (time-slicing has no
   * limits to set).
   */
  static DeviceConfig apply(DeviceConfig config, Map<String, Quantity> consumed) {
    if (consumed == null || !consumed.containsKey(DeviceAttributeNames.MEMORY)) {
      return config;
    }
    long memory = amount(consumed.get(DeviceAttributeNames.MEMORY));
    long compute =
        consumed.containsKey(DeviceAttributeNames.COMPUTE)
            ? amount(consumed.get(DeviceAttributeNames.COMPUTE))
            : 0;
    Sharing.Mps mps =
        switch (config.sharing()) {
          case Sharing.TimeSlicing t -> null;
          case Sharing.Exclusive e ->
              new Sharing.Mps(
                  compute > 0 ? OptionalInt.of((int) compute) : OptionalInt.empty(),
                  OptionalLong.of(memory));
          case Sharing.Mps m ->
              new Sharing.Mps(
                  lower(m.defaultActiveThreadPercentage(), compute),
                  OptionalLong.of(
                      Math.min(m.defaultPinnedDeviceMemoryLimitBytes().orElse(memory), memory)));
        };
    return mps == null ? config : new DeviceConfig.GpuConfig(mps);
  }

  private static OptionalInt lower(OptionalInt configured, long consumed) {
    if (consumed <= 0) {
      return configured;
    }
    return OptionalInt.of((int) Math.min(configured.orElse((int) consumed), consumed));
  }

  private static long amount(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity).longValue();
  }
}
