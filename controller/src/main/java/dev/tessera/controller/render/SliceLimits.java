package dev.tessera.controller.render;

/** The API server's limits on one ResourceSlice (resource.k8s.io/v1, Kubernetes 1.35+). */
public final class SliceLimits {
  public static final int MAX_DEVICES = 128;

  /** When any device has taints, consumes counters or has list attributes. */
  public static final int MAX_DEVICES_WITH_ADVANCED_FEATURES = 64;

  public static final int MAX_COUNTER_SETS = 8;
  public static final int MAX_COUNTERS_PER_SET = 32;
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32;

  private SliceLimits() {}
}
