package dev.tessera.plugin.nvml;

/**
 * {@code nvmlUtilization_t}: percent of the last sample period the GPU ran kernels, or used memory.
 */
public record Utilization(int gpuPercent, int memoryPercent) {}
