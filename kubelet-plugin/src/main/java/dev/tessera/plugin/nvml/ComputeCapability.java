package dev.tessera.plugin.nvml;

/** The CUDA compute capability, e.g. 9.0 for Hopper. */
public record ComputeCapability(int major, int minor) {
  @Override
  public String toString() {
    return major + "." + minor;
  }
}
