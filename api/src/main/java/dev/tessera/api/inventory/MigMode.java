package dev.tessera.api.inventory;

/** A GPU's MIG mode as NVML reports it. */
public enum MigMode {
  /** The GPU cannot do MIG (e.g. L40S). */
  UNSUPPORTED,
  DISABLED,
  ENABLED,
  /** Enabled in the driver but waiting for a GPU reset to take effect (Ampere). */
  ENABLE_PENDING_RESET,
  /** Disabled in the driver but waiting for a GPU reset to take effect (Ampere). */
  DISABLE_PENDING_RESET
}
