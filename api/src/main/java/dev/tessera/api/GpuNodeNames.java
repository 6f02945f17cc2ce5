package dev.tessera.api;

/** The GpuNode custom resource: one per GPU node, its status the node's inventory. */
public final class GpuNodeNames {
  public static final String GROUP = "gpu.tessera.dev";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String KIND = "GpuNode";
  public static final String PLURAL = "gpunodes";

  private GpuNodeNames() {}
}
