package dev.tessera.plugin.metrics;

/**
 * The per-device series the plugin publishes, named as Prometheus has them (units in the name,
 * {@code _total} for counters; Micrometer adds {@code _total} to a counter's name).
 */
public enum Metric {
  GPU_UTILIZATION(
      "tessera.gpu.utilization.ratio", Kind.GAUGE, "Share of the last sample period kernels ran"),
  MEMORY_UTILIZATION(
      "tessera.gpu.memory.utilization.ratio",
      Kind.GAUGE,
      "Share of the last sample period device memory was read or written"),
  MEMORY_USED("tessera.gpu.memory.used.bytes", Kind.GAUGE, "Device memory in use"),
  MEMORY_TOTAL("tessera.gpu.memory.total.bytes", Kind.GAUGE, "Device memory in all"),
  POWER("tessera.gpu.power.watts", Kind.GAUGE, "Power drawn by the board"),
  TEMPERATURE("tessera.gpu.temperature.celsius", Kind.GAUGE, "GPU die temperature"),
  SM_CLOCK("tessera.gpu.sm.clock.hertz", Kind.GAUGE, "Current SM clock"),
  ECC_CORRECTED(
      "tessera.gpu.ecc.corrected.errors",
      Kind.COUNTER,
      "Corrected (single-bit) ECC errors since the driver loaded"),
  ECC_UNCORRECTED(
      "tessera.gpu.ecc.uncorrected.errors",
      Kind.COUNTER,
      "Uncorrected (double-bit) ECC errors since the driver loaded"),
  XID_ERRORS("tessera.gpu.xid.errors", Kind.COUNTER, "XID errors seen since the plugin started"),
  MPS_CLIENT_MEMORY(
      "tessera.gpu.mps.client.memory.used.bytes",
      Kind.GAUGE,
      "Device memory the device's MPS clients use, summed"),
  CONSUMED_MEMORY(
      "tessera.claim.memory.consumed.bytes",
      Kind.GAUGE,
      "Device memory the scheduler counted out of a shared GPU for the claim");

  /** A gauge is its latest value; a counter an absolute count read from NVML or the plugin. */
  public enum Kind {
    GAUGE,
    COUNTER
  }

  private final String meterName;
  private final Kind kind;
  private final String description;

  Metric(String meterName, Kind kind, String description) {
    this.meterName = meterName;
    this.kind = kind;
    this.description = description;
  }

  /** The Micrometer name; Prometheus shows it with underscores (and {@code _total}). */
  public String meterName() {
    return meterName;
  }

  public Kind kind() {
    return kind;
  }

  public String description() {
    return description;
  }
}
