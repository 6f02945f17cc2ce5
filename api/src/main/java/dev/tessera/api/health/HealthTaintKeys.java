package dev.tessera.api.health;

/** The keys of the device taints Tessera publishes for unhealthy devices, in one place. */
public final class HealthTaintKeys {
  /** An XID error; the value is the XID number. */
  public static final String XID = "gpu.tessera.dev/xid";

  /** A double-bit (uncorrectable) ECC error. */
  public static final String ECC = "gpu.tessera.dev/ecc";

  /** The GPU fell off the bus or stopped answering NVML. */
  public static final String GPU_LOST = "gpu.tessera.dev/gpu-lost";

  private HealthTaintKeys() {}
}
