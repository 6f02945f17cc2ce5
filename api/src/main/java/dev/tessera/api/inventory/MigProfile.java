package dev.tessera.api.inventory;

import java.util.List;

/**
 * A GPU-instance profile with the placements the GPU allows for it.
 *
 * @param profileId NVML's profile id (the {@code id} field, as {@code nvidia-smi mig -lgip} shows)
 * @param name the profile's name without the {@code MIG } prefix, e.g. {@code 3g.40gb}
 * @param sliceCount compute slices the profile uses
 * @param instanceCount how many instances of it the GPU can hold at most
 */
public record MigProfile(
    int profileId,
    String name,
    int sliceCount,
    int instanceCount,
    long memoryBytes,
    int multiprocessors,
    int copyEngines,
    int decoders,
    int encoders,
    int jpegEngines,
    int ofaEngines,
    List<MigPlacement> placements) {
  public MigProfile {
    placements = List.copyOf(placements);
  }
}
