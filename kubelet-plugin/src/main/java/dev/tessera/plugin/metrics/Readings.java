package dev.tessera.plugin.metrics;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one sample read of one device, in the series' units (ratios, bytes, watts, hertz). A value
 * NVML could not give is absent, and so is its series until it can.
 */
public record Readings(Map<Metric, Double> values) {
  public static final Readings NONE = new Readings(Map.of());

  public Readings {
    values = values.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(values));
  }
}
