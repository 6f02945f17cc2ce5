package dev.tessera.api.config;

/**
 * Tessera's opaque device configuration ({@code gpu.tessera.dev/v1alpha1}), decoded and validated.
 * Kinds: {@code GpuConfig} for whole GPUs, {@code MigDeviceConfig} for MIG devices.
 */
public sealed interface DeviceConfig permits DeviceConfig.GpuConfig, DeviceConfig.MigDeviceConfig {

  Sharing sharing();

  /** How a whole GPU is used by the claims it is allocated to. */
  record GpuConfig(Sharing sharing) implements DeviceConfig {
    public static final String KIND = "GpuConfig";

    public static GpuConfig defaults() {
      return new GpuConfig(new Sharing.Exclusive());
    }
  }

  /** How a MIG device is used by the claims it is allocated to. */
  record MigDeviceConfig(Sharing sharing) implements DeviceConfig {
    public static final String KIND = "MigDeviceConfig";

    public static MigDeviceConfig defaults() {
      return new MigDeviceConfig(new Sharing.Exclusive());
    }
  }
}
