package dev.tessera.cel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A device as a selector sees it ({@code device.driver}, {@code device.attributes[domain][name]},
 * {@code device.capacity[domain][name]}): names are by domain, unqualified names in the driver's
 * domain; attribute values are {@code String}, {@code Long}, {@code Boolean} or {@link Semver}.
 */
public record CelDevice(
    String driver,
    Map<String, Map<String, Object>> attributes,
    Map<String, Map<String, Quantity>> capacity,
    boolean allowMultipleAllocations) {
  public CelDevice {
    attributes = copy(attributes);
    capacity = copy(capacity);
  }

  /** The value CEL's {@code device} variable has. */
  Map<String, Object> asCelValue() {
    return Map.of(
        "driver",
        driver,
        "attributes",
        attributes,
        "capacity",
        capacity,
        "allowMultipleAllocations",
        allowMultipleAllocations);
  }

  private static <V> Map<String, Map<String, V>> copy(Map<String, Map<String, V>> byDomain) {
    var copy = new LinkedHashMap<String, Map<String, V>>();
    byDomain.forEach((domain, values) -> copy.put(domain, Map.copyOf(values)));
    return Map.copyOf(copy);
  }
}
