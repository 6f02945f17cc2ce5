package dev.tessera.cli.core;

import dev.tessera.cel.CelDevice;
import dev.tessera.cel.Quantity;
import dev.tessera.cel.Semver;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A published device as the scheduler's CEL sees it: names split by domain (an unqualified name is
 * the driver's), attributes as their typed values, capacities as quantities.
 */
public final class CelDevices {
  private CelDevices() {}

  public static CelDevice of(String driver, Device device) {
    var attributes = new LinkedHashMap<String, Map<String, Object>>();
    if (device.getAttributes() != null) {
      device
          .getAttributes()
          .forEach(
              (name, value) ->
                  attributes
                      .computeIfAbsent(domain(name, driver), d -> new LinkedHashMap<>())
                      .put(unqualified(name), value(value)));
    }
    var capacity = new LinkedHashMap<String, Map<String, Quantity>>();
    if (device.getCapacity() != null) {
      device
          .getCapacity()
          .forEach(
              (name, value) ->
                  capacity
                      .computeIfAbsent(domain(name, driver), d -> new LinkedHashMap<>())
                      .put(unqualified(name), Quantities.of(value.getValue())));
    }
    return new CelDevice(
        driver, attributes, capacity, Boolean.TRUE.equals(device.getAllowMultipleAllocations()));
  }

  static String domain(String name, String driver) {
    int slash = name.indexOf('/');
    return slash < 0 ? driver : name.substring(0, slash);
  }

  static String unqualified(String name) {
    return name.substring(name.indexOf('/') + 1);
  }

  private static Object value(DeviceAttribute attribute) {
    if (attribute.getVersion() != null) {
      return Semver.parse(attribute.getVersion());
    }
    if (attribute.getInt() != null) {
      return attribute.getInt();
    }
    if (attribute.getBool() != null) {
      return attribute.getBool();
    }
    return attribute.getString() == null ? "" : attribute.getString();
  }
}
