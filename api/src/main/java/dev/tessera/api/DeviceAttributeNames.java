package dev.tessera.api;

/**
 * Attribute and capacity names published on devices. Unprefixed names live in the driver's domain;
 * the {@code resource.kubernetes.io/} ones are the standard names other drivers match against.
 */
public final class DeviceAttributeNames {
  public static final String TYPE = "type";
  public static final String UUID = "uuid";
  public static final String PRODUCT_NAME = "productName";

  /**
   * NVML's brand name as {@code nvidia-smi} prints it ("Product Brand"): {@code NVIDIA} for current
   * data-center parts. NVIDIA's DRA driver publishes {@code Nvidia} for the same GPU; CEL compares
   * case-sensitively (docs/migration-from-nvidia-dra-driver.md).
   */
  public static final String BRAND = "brand";

  public static final String ARCHITECTURE = "architecture";
  public static final String CUDA_COMPUTE_CAPABILITY = "cudaComputeCapability";
  public static final String DRIVER_VERSION = "driverVersion";
  public static final String CUDA_DRIVER_VERSION = "cudaDriverVersion";
  public static final String PROFILE = "profile";
  public static final String PARENT_UUID = "parentUUID";
  public static final String PCI_BUS_ID = "resource.kubernetes.io/pciBusID";
  public static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";

  /**
   * KEP-6072's standard NUMA node (stable in Kubernetes 1.37; the name NVIDIA's driver publishes):
   * an int, the GPU's NUMA node. Published in the scalar form, which needs no feature gate (the
   * list form needs {@code DRAListTypeAttributes}, alpha in 1.37).
   */
  public static final String NUMA_NODE = "resource.kubernetes.io/numaNode";

  /**
   * Tessera's own name of the NUMA node, in the driver's domain, from before the standard one.
   * Published beside {@link #NUMA_NODE} with the same value for one more release, then removed.
   */
  public static final String LEGACY_NUMA_NODE = "numaNode";

  public static final String TYPE_GPU = "gpu";
  public static final String TYPE_MIG = "mig";

  /** Capacity names. */
  public static final String MEMORY = "memory";

  /**
   * The {@code shared} offering's consumable compute capacity: a percentage of the GPU's SMs, which
   * the plugin enforces as the MPS active thread percentage.
   */
  public static final String COMPUTE = "compute";

  public static final String MULTIPROCESSORS = "multiprocessors";
  public static final String COPY_ENGINES = "copyEngines";
  public static final String DECODERS = "decoders";
  public static final String ENCODERS = "encoders";
  public static final String JPEG_ENGINES = "jpegEngines";
  public static final String OFA_ENGINES = "ofaEngines";

  private DeviceAttributeNames() {}
}
