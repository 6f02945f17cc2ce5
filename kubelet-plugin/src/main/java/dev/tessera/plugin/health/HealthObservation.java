package dev.tessera.plugin.health;

/** One thing NVML told us about a device, by the device's name in the node's pool. */
public sealed interface HealthObservation {
  String device();

  /** An XID error (a lost GPU also reports XID 79). */
  record Xid(String device, long xid) implements HealthObservation {}

  /** A double-bit ECC error: memory the GPU could not correct. */
  record DoubleBitEcc(String device) implements HealthObservation {}

  /** The GPU stopped answering NVML. */
  record GpuLost(String device) implements HealthObservation {}
}
