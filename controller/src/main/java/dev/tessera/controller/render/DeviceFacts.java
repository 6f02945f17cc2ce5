package dev.tessera.controller.render;

import static dev.tessera.api.DeviceAttributeNames.ARCHITECTURE;
import static dev.tessera.api.DeviceAttributeNames.BRAND;
import static dev.tessera.api.DeviceAttributeNames.COPY_ENGINES;
import static dev.tessera.api.DeviceAttributeNames.CUDA_COMPUTE_CAPABILITY;
import static dev.tessera.api.DeviceAttributeNames.CUDA_DRIVER_VERSION;
import static dev.tessera.api.DeviceAttributeNames.DECODERS;
import static dev.tessera.api.DeviceAttributeNames.DRIVER_VERSION;
import static dev.tessera.api.DeviceAttributeNames.ENCODERS;
import static dev.tessera.api.DeviceAttributeNames.JPEG_ENGINES;
import static dev.tessera.api.DeviceAttributeNames.LEGACY_NUMA_NODE;
import static dev.tessera.api.DeviceAttributeNames.MEMORY;
import static dev.tessera.api.DeviceAttributeNames.MULTIPROCESSORS;
import static dev.tessera.api.DeviceAttributeNames.NUMA_NODE;
import static dev.tessera.api.DeviceAttributeNames.OFA_ENGINES;
import static dev.tessera.api.DeviceAttributeNames.PARENT_UUID;
import static dev.tessera.api.DeviceAttributeNames.PCIE_ROOT;
import static dev.tessera.api.DeviceAttributeNames.PCI_BUS_ID;
import static dev.tessera.api.DeviceAttributeNames.PRODUCT_NAME;
import static dev.tessera.api.DeviceAttributeNames.PROFILE;
import static dev.tessera.api.DeviceAttributeNames.TYPE;
import static dev.tessera.api.DeviceAttributeNames.TYPE_GPU;
import static dev.tessera.api.DeviceAttributeNames.TYPE_MIG;
import static dev.tessera.api.DeviceAttributeNames.UUID;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/** The attributes and capacities Tessera publishes for whole GPUs and MIG devices. */
final class DeviceFacts {
  private DeviceFacts() {}

  /** A whole GPU's attributes: its own identity plus what every device of it shares. */
  static Map<String, DeviceAttribute> gpuAttributes(NodeInventory node, Gpu gpu) {
    var attributes = new LinkedHashMap<String, DeviceAttribute>();
    attributes.put(TYPE, string(TYPE_GPU));
    attributes.put(UUID, string(gpu.uuid()));
    attributes.putAll(sharedAttributes(node, gpu));
    return attributes;
  }

  /** A MIG device's attributes: type, profile, parent, and the parent's shared facts. */
  static Map<String, DeviceAttribute> migAttributes(NodeInventory node, Gpu gpu, String profile) {
    var attributes = new LinkedHashMap<String, DeviceAttribute>();
    attributes.put(TYPE, string(TYPE_MIG));
    attributes.put(PROFILE, string(profile));
    attributes.put(PARENT_UUID, string(gpu.uuid()));
    attributes.putAll(sharedAttributes(node, gpu));
    return attributes;
  }

  static Map<String, DeviceAttribute> withUuid(
      Map<String, DeviceAttribute> attributes, String uuid) {
    var copy = new LinkedHashMap<>(attributes);
    copy.put(UUID, string(uuid));
    return copy;
  }

  static Map<String, DeviceCapacity> gpuCapacity(Gpu gpu) {
    return Map.of(MEMORY, capacity(gpu.memoryBytes()));
  }

  /** A MIG profile's memory and engines, so claims can select on them. */
  static Map<String, DeviceCapacity> migCapacity(MigProfile profile) {
    var capacity = new LinkedHashMap<String, DeviceCapacity>();
    capacity.put(MEMORY, capacity(profile.memoryBytes()));
    capacity.put(MULTIPROCESSORS, capacity(profile.multiprocessors()));
    capacity.put(COPY_ENGINES, capacity(profile.copyEngines()));
    capacity.put(DECODERS, capacity(profile.decoders()));
    capacity.put(ENCODERS, capacity(profile.encoders()));
    capacity.put(JPEG_ENGINES, capacity(profile.jpegEngines()));
    capacity.put(OFA_ENGINES, capacity(profile.ofaEngines()));
    return capacity;
  }

  static DeviceCapacity capacity(long value) {
    return new DeviceCapacityBuilder().withValue(new Quantity(Long.toString(value))).build();
  }

  private static Map<String, DeviceAttribute> sharedAttributes(NodeInventory node, Gpu gpu) {
    var attributes = new LinkedHashMap<String, DeviceAttribute>();
    attributes.put(PRODUCT_NAME, string(gpu.productName()));
    attributes.put(BRAND, string(gpu.brand()));
    attributes.put(ARCHITECTURE, string(gpu.architecture()));
    attributes.put(CUDA_COMPUTE_CAPABILITY, version(gpu.cudaComputeCapability()));
    attributes.put(DRIVER_VERSION, version(node.driverVersion()));
    attributes.put(CUDA_DRIVER_VERSION, version(node.cudaDriverVersion()));
    attributes.put(PCI_BUS_ID, string(PciAddresses.busId(gpu.pciBusId())));
    if (gpu.pcieRoot() != null) {
      attributes.put(PCIE_ROOT, string(gpu.pcieRoot()));
    }
    if (gpu.numaNode() != null) {
      var numaNode = new DeviceAttributeBuilder().withInt(gpu.numaNode().longValue()).build();
      attributes.put(NUMA_NODE, numaNode);
      attributes.put(LEGACY_NUMA_NODE, numaNode); // kept for one release beside the standard name
    }
    return attributes;
  }

  private static DeviceAttribute string(String value) {
    return new DeviceAttributeBuilder().withString(value).build();
  }

  private static DeviceAttribute version(String value) {
    return new DeviceAttributeBuilder().withVersion(Versions.semver(value)).build();
  }
}
