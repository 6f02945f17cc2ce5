package dev.tessera.plugin.nvml;

/** {@code nvmlMemory_v2_t}, in bytes. */
public record MemoryInfo(long total, long reserved, long free, long used) {}
