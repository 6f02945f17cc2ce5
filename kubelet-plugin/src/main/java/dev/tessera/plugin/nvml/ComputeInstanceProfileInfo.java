package dev.tessera.plugin.nvml;

/**
 * {@code nvmlComputeInstanceProfileInfo_v2_t}.
 *
 * @param id the profile id within the GPU instance (what compute-instance creation takes)
 */
public record ComputeInstanceProfileInfo(
    int id,
    int sliceCount,
    int instanceCount,
    int multiprocessorCount,
    int sharedCopyEngineCount,
    int sharedDecoderCount,
    int sharedEncoderCount,
    int sharedJpegCount,
    int sharedOfaCount,
    String name) {}
