package dev.tessera.api.inventory;

/**
 * A MIG device that exists on a GPU: one GPU instance with one compute instance.
 *
 * @param profileId the GPU instance's profile id (see {@link MigProfile#profileId()})
 * @param profile the profile name, e.g. {@code 1g.10gb}
 */
public record MigDevice(
    String uuid,
    int gpuInstanceId,
    int computeInstanceId,
    int profileId,
    String profile,
    MigPlacement placement,
    long memoryBytes) {}
