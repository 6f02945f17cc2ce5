package dev.tessera.plugin.mig;

import dev.tessera.api.inventory.MigPlacement;

/**
 * A MIG device this plugin creates for a claim, as the checkpoint keeps it. It is recorded before
 * it is made (ids still {@code null}), so a plugin that dies part-way finds and destroys it by its
 * profile and placement; once made, the ids and UUID are recorded too.
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

  public static CreatedMig intent(MigTarget target, boolean enableMigMode) {
    return new CreatedMig(
        target.gpuUuid(),
        target.device(),
        target.profileId(),
        target.profile(),
        target.placement(),
        null,
        null,
        null,
        enableMigMode);
  }

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

  /** Whether {@code instance} on GPU {@code gpu} is this device (by id once known). */
  public boolean matches(String gpu, GpuMigState.Instance instance) {
    return gpuUuid.equals(gpu)
        && instance.profileId() == profileId
        && instance.placement().start() == placement.start()
        && (gpuInstanceId == null || gpuInstanceId == instance.gpuInstanceId());
  }
}
