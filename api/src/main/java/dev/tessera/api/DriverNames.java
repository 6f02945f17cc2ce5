package dev.tessera.api;

/** Names Tessera shares between the node plugin, the controller and the cluster objects. */
public final class DriverNames {
  /** The default DRA driver name; configurable per installation. */
  public static final String DEFAULT_DRIVER = "gpu.tessera.dev";

  /** Group and version of the opaque parameters (GpuConfig, MigDeviceConfig). */
  public static final String CONFIG_GROUP = "gpu.tessera.dev";

  public static final String CONFIG_VERSION = "v1alpha1";
  public static final String CONFIG_API_VERSION = CONFIG_GROUP + "/" + CONFIG_VERSION;

  /** The registration type the kubelet expects from a DRA plugin. */
  public static final String DRA_PLUGIN_TYPE = "DRAPlugin";

  private DriverNames() {}
}
