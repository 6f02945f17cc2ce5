package dev.tessera.plugin.nvml;

/** {@code nvmlGpuInstanceInfo_t} without the parent device. */
public record GpuInstanceInfo(int id, int profileId, Placement placement) {}
