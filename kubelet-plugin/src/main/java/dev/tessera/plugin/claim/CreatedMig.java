package dev.tessera.plugin.claim;

import dev.tessera.api.inventory.MigPlacement;

/**
 * A MIG device this plugin creates for a claim, as the claim's entry keeps it. It is recorded
 * before it is made (ids still {@code null}), so a plugin that dies part-way finds and destroys it
 * by its profile and placement; once made, the ids and UUID are recorded too.
 *
 * @param device the allocated device name
 * @param gpuInstanceId {@code null} until the GPU instance exists
 * @param computeInstanceId {@code null} until the compute instance exists
 * @param uuid the MIG device UUID, {@code null} until it exists
 * @param enabledMigMode whether creating it switched the GPU into MIG mode (switched back off when
 *     the GPU is left without instances)
 */
public record CreatedMig(
    String gpuUuid,
    String device,
    int profileId,
    String profile,
    MigPlacement placement,
    Integer gpuInstanceId,
    Integer computeInstanceId,
    String uuid,
    boolean enabledMigMode) {

  public CreatedMig made(int gpuInstance, int computeInstance, String migUuid) {
    return new CreatedMig(
        gpuUuid,
        device,
        profileId,
        profile,
        placement,
        gpuInstance,
        computeInstance,
        migUuid,
        enabledMigMode);
  }

  /** The same device, with the duty to switch its GPU's MIG mode back off given or taken. */
  public CreatedMig withEnabledMigMode(boolean enabled) {
    return new CreatedMig(
        gpuUuid,
        device,
        profileId,
        profile,
        placement,
        gpuInstanceId,
        computeInstanceId,
        uuid,
        enabled);
  }
}
