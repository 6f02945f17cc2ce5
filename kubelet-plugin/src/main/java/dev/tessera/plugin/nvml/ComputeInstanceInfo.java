package dev.tessera.plugin.nvml;

/** {@code nvmlComputeInstanceInfo_t} without the parent handles. */
public record ComputeInstanceInfo(int id, int profileId, Placement placement) {}
