package dev.tessera.plugin.nvml;

/**
 * Opaque NVML handles. Each wraps the native handle's address; only the {@link Nvml} that returned
 * a handle may be given it back.
 */
public sealed interface NvmlHandle {
  long peer();

  /** A physical GPU or a MIG device ({@code nvmlDevice_t}). */
  record Device(long peer) implements NvmlHandle {}

  /** A GPU instance ({@code nvmlGpuInstance_t}). */
  record GpuInstance(long peer) implements NvmlHandle {}

  /** A compute instance ({@code nvmlComputeInstance_t}). */
  record ComputeInstance(long peer) implements NvmlHandle {}

  /** An event set ({@code nvmlEventSet_t}). */
  record EventSet(long peer) implements NvmlHandle {}
}
