package dev.tessera.plugin.metrics;

import java.util.List;

/**
 * A device to sample: its DRA device name, its UUID and the claims holding it ({@link Holder#NONE}
 * alone when none does: one series with empty claim labels).
 */
public record SampledDevice(String name, String uuid, List<Holder> holders) {
  public SampledDevice {
    holders = holders.isEmpty() ? List.of(Holder.NONE) : List.copyOf(holders);
  }
}
