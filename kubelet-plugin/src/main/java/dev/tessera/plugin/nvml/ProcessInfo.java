package dev.tessera.plugin.nvml;

/**
 * {@code nvmlProcessInfo_t}: a process holding a context on a GPU or MIG device.
 *
 * @param usedGpuMemory bytes, or {@link #MEMORY_NOT_AVAILABLE} where the driver cannot tell (a
 *     Windows WDDM driver; some MPS set-ups)
 * @param gpuInstanceId {@code 0xFFFFFFFF} (-1) outside MIG
 */
public record ProcessInfo(int pid, long usedGpuMemory, int gpuInstanceId, int computeInstanceId) {
  /** {@code NVML_VALUE_NOT_AVAILABLE}: an unsigned long long of all ones. */
  public static final long MEMORY_NOT_AVAILABLE = -1L;

  public boolean memoryKnown() {
    return usedGpuMemory != MEMORY_NOT_AVAILABLE;
  }
}
