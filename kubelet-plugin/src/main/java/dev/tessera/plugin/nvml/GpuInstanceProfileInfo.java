package dev.tessera.plugin.nvml;

/**
 * {@code nvmlGpuInstanceProfileInfo_v2_t}.
 *
 * @param id the profile id (what {@code nvmlDeviceGetGpuInstances} and placements take)
 * @param name NVML's name, e.g. {@code MIG 1g.10gb}
 */
public record GpuInstanceProfileInfo(
    int id,
    boolean p2pSupported,
    int sliceCount,
    int instanceCount,
    int multiprocessorCount,
    int copyEngineCount,
    int decoderCount,
    int encoderCount,
    int jpegCount,
    int ofaCount,
    long memorySizeMb,
    String name) {}
