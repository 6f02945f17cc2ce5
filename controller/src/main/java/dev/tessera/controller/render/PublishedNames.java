package dev.tessera.controller.render;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.cel.AttributeType;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The attribute names (with their types) and capacity names Tessera's devices carry, by domain, as
 * a CEL selector sees them: {@code device.attributes["gpu.tessera.dev"].productName}, {@code
 * device.attributes["resource.kubernetes.io"].pcieRoot}. Taken from what the renderer itself puts
 * on the devices of a specimen node that has every kind of GPU and every optional fact, in every
 * offering, so the list is never written twice.
 *
 * @param attributes domain, then attribute name, then its type
 * @param capacities domain, then the capacity names (all quantities)
 */
public record PublishedNames(
    Map<String, Map<String, AttributeType>> attributes, Map<String, Set<String>> capacities) {

  public PublishedNames {
    attributes = copy(attributes);
    capacities = copyOfSets(capacities);
  }

  /**
   * @param driverDomain the domain of unqualified names: the driver's name
   */
  public static PublishedNames of(String driverDomain) {
    var attributes = new TreeMap<String, Map<String, AttributeType>>();
    var capacities = new TreeMap<String, Set<String>>();
    var renderer = new SliceRenderer();
    for (Offering offering : Offering.values()) {
      for (DesiredSlice slice : renderer.render(SPECIMEN, offering)) {
        if (!(slice instanceof DesiredSlice.Devices devices)) {
          continue;
        }
        for (Device device : devices.devices()) {
          device
              .getAttributes()
              .forEach(
                  (name, value) ->
                      attributes
                          .computeIfAbsent(domain(name, driverDomain), d -> new TreeMap<>())
                          .put(unqualified(name), type(value)));
          device
              .getCapacity()
              .keySet()
              .forEach(
                  name ->
                      capacities
                          .computeIfAbsent(domain(name, driverDomain), d -> new TreeSet<>())
                          .add(unqualified(name)));
        }
      }
    }
    return new PublishedNames(attributes, capacities);
  }

  /** The attributes of a domain; empty for a domain Tessera publishes nothing in. */
  public Map<String, AttributeType> attributesOf(String domain) {
    return attributes.getOrDefault(domain, Map.of());
  }

  public Set<String> capacitiesOf(String domain) {
    return capacities.getOrDefault(domain, Set.of());
  }

  /** The other domain an attribute of this name is published in, if any. */
  public Optional<String> attributeDomainOf(String name) {
    return attributes.entrySet().stream()
        .filter(e -> e.getValue().containsKey(name))
        .map(Map.Entry::getKey)
        .findFirst();
  }

  private static String domain(String name, String driverDomain) {
    int slash = name.indexOf('/');
    return slash < 0 ? driverDomain : name.substring(0, slash);
  }

  private static String unqualified(String name) {
    return name.substring(name.indexOf('/') + 1);
  }

  private static AttributeType type(DeviceAttribute value) {
    if (value.getVersion() != null) {
      return AttributeType.VERSION;
    }
    if (value.getInt() != null) {
      return AttributeType.INT;
    }
    if (value.getBool() != null) {
      return AttributeType.BOOL;
    }
    return AttributeType.STRING;
  }

  private static Map<String, Map<String, AttributeType>> copy(
      Map<String, Map<String, AttributeType>> byDomain) {
    var copy = new TreeMap<String, Map<String, AttributeType>>();
    byDomain.forEach((domain, names) -> copy.put(domain, Map.copyOf(names)));
    return Map.copyOf(copy);
  }

  private static Map<String, Set<String>> copyOfSets(Map<String, Set<String>> byDomain) {
    var copy = new TreeMap<String, Set<String>>();
    byDomain.forEach((domain, names) -> copy.put(domain, Set.copyOf(names)));
    return Map.copyOf(copy);
  }

  private static final long GIB = 1L << 30;
  private static final MigProfile PROFILE =
      new MigProfile(
          19, "1g.10gb", 1, 7, 10 * GIB, 16, 1, 1, 0, 1, 0, List.of(new MigPlacement(0, 1)));

  /**
   * A node with every kind of GPU the offerings tell apart: one in MIG mode with a MIG device (a
   * Hopper, offered whole and partitioned in mig-dynamic), one without, both with their NUMA node
   * and PCIe root.
   */
  private static final NodeInventory SPECIMEN =
      new NodeInventory(
          "580.95.05",
          "13.0",
          "13.580.95.05",
          List.of(
              new Gpu(
                  0,
                  0,
                  "GPU-00000000-0000-0000-0000-000000000000",
                  "NVIDIA H100 80GB HBM3",
                  "NVIDIA",
                  "Hopper",
                  "9.0",
                  80 * GIB,
                  "00000000:1B:00.0",
                  "pci0000:00",
                  0,
                  MigMode.ENABLED,
                  List.of(
                      new MigDevice(
                          "MIG-00000000-0000-0000-0000-000000000000",
                          1,
                          0,
                          PROFILE.profileId(),
                          PROFILE.name(),
                          new MigPlacement(0, 1),
                          PROFILE.memoryBytes())),
                  List.of(PROFILE)),
              new Gpu(
                  1,
                  1,
                  "GPU-00000000-0000-0000-0000-000000000001",
                  "NVIDIA H100 80GB HBM3",
                  "NVIDIA",
                  "Hopper",
                  "9.0",
                  80 * GIB,
                  "00000000:2B:00.0",
                  "pci0000:00",
                  0,
                  MigMode.DISABLED,
                  List.of(),
                  List.of(PROFILE))));
}
