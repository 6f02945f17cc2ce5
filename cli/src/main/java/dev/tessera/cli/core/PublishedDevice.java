package dev.tessera.cli.core;

import io.fabric8.kubernetes.api.model.resource.v1.Device;

/** A device as its slice publishes it, with the node and pool it belongs to. */
public record PublishedDevice(String node, String pool, Device device) {
  public String name() {
    return device.getName();
  }

  public boolean shared() {
    return Boolean.TRUE.equals(device.getAllowMultipleAllocations());
  }
}
