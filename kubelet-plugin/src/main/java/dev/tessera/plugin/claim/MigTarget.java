package dev.tessera.plugin.claim;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import java.util.Optional;

/**
 * The MIG device an allocated device name asks for: a GPU instance of one profile at one placement
 * of one GPU, whether or not it exists yet.
 *
 * @param device the allocated device name, e.g. {@code gpu-0-mig-1g10gb-3}
 * @param memoryBytes the profile's memory, reported for a device this plugin finds or makes
 */
public record MigTarget(
    String gpuUuid,
    int gpuMinor,
    String device,
    int profileId,
    String profile,
    MigPlacement placement,
    long memoryBytes) {

  /**
   * The target a MIG device name means on this GPU: a MIG device the inventory knows, else a
   * profile and placement the GPU supports; empty when the GPU has neither.
   */
  public static Optional<MigTarget> resolve(Gpu gpu, DeviceName.Mig name) {
    var known =
        existing(gpu, name)
            .map(
                m ->
                    new MigTarget(
                        gpu.uuid(),
                        gpu.minor(),
                        name.value(),
                        m.profileId(),
                        m.profile(),
                        m.placement(),
                        m.memoryBytes()));
    if (known.isPresent()) {
      return known;
    }
    for (MigProfile profile : gpu.migProfiles()) {
      if (!DeviceName.profileLabel(profile.name()).equals(name.profile())) {
        continue;
      }
      for (MigPlacement placement : profile.placements()) {
        if (placement.start() == name.placementStart()) {
          return Optional.of(
              new MigTarget(
                  gpu.uuid(),
                  gpu.minor(),
                  name.value(),
                  profile.profileId(),
                  profile.name(),
                  placement,
                  profile.memoryBytes()));
        }
      }
    }
    return Optional.empty();
  }

  /** The MIG device of that name the inventory knows (it existed at discovery), if any. */
  public static Optional<MigDevice> existing(Gpu gpu, DeviceName.Mig name) {
    return gpu.migDevices().stream()
        .filter(m -> m.placement().start() == name.placementStart())
        .filter(m -> DeviceName.profileLabel(m.profile()).equals(name.profile()))
        .findFirst();
  }

  /** Whether the memory slices of this target and {@code other} on the same GPU overlap. */
  public boolean overlaps(MigPlacement other) {
    return placement.start() < other.start() + other.size()
        && other.start() < placement.start() + placement.size();
  }

  /** The MIG device this target makes, recorded before it is made (no ids or UUID yet). */
  public CreatedMig intent(boolean enableMigMode) {
    return new CreatedMig(
        gpuUuid, device, profileId, profile, placement, null, null, null, enableMigMode);
  }
}
