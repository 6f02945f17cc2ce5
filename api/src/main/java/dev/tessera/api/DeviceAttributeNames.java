package dev.tessera.api;

/**
 * Attribute and capacity names published on devices. Unprefixed names live in the driver's domain;
 * the {@code resource.kubernetes.io/} ones are the standard names other drivers match against.
 */
public final class DeviceAttributeNames {
  public static final String TYPE = "type";
  public static final String UUID = "uuid";
  public static final String PRODUCT_NAME = "productName";
  public static final String BRAND = "brand";
  public static final String ARCHITECTURE = "architecture";
  public static final String CUDA_COMPUTE_CAPABILITY = "cudaComputeCapability";
  public static final String DRIVER_VERSION = "driverVersion";
  public static final String CUDA_DRIVER_VERSION = "cudaDriverVersion";
  public static final String PROFILE = "profile";
  public static final String PARENT_UUID = "parentUUID";
  public static final String PCI_BUS_ID = "resource.kubernetes.io/pciBusID";
  public static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";
  public static final String NUMA_NODE = "numaNode";

  public static final String TYPE_GPU = "gpu";
  public static final String TYPE_MIG = "mig";

  /** Capacity names. */
  public static final String MEMORY = "memory";

  public static final String MULTIPROCESSORS = "multiprocessors";
  public static final String COPY_ENGINES = "copyEngines";
  public static final String DECODERS = "decoders";
  public static final String ENCODERS = "encoders";
  public static final String JPEG_ENGINES = "jpegEngines";
  public static final String OFA_ENGINES = "ofaEngines";

  private DeviceAttributeNames() {}
}
