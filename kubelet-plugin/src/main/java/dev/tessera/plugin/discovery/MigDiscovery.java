package dev.tessera.plugin.discovery;

import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.plugin.nvml.GpuInstanceInfo;
import dev.tessera.plugin.nvml.GpuInstanceProfileInfo;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.Placement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A GPU's MIG profiles with their placements, and the MIG devices that exist on it. */
final class MigDiscovery {
  private static final long MIB = 1024L * 1024L;

  private final Nvml nvml;

  MigDiscovery(Nvml nvml) {
    this.nvml = nvml;
  }

  /** Every GPU-instance profile the GPU has, in NVML's profile-index order. */
  List<MigProfile> profiles(Device gpu) {
    Map<Integer, MigProfile> byId = new LinkedHashMap<>();
    for (int index = 0; index < Nvml.GPU_INSTANCE_PROFILE_COUNT; index++) {
      nvml.gpuInstanceProfileInfo(gpu, index)
          .ifPresent(info -> byId.putIfAbsent(info.id(), profile(gpu, info)));
    }
    return List.copyOf(byId.values());
  }

  private MigProfile profile(Device gpu, GpuInstanceProfileInfo info) {
    List<MigPlacement> placements =
        nvml.gpuInstancePossiblePlacements(gpu, info.id()).stream()
            .map(MigDiscovery::placement)
            .toList();
    return new MigProfile(
        info.id(),
        NvmlNames.migProfile(info.name()),
        info.sliceCount(),
        info.instanceCount(),
        info.memorySizeMb() * MIB,
        info.multiprocessorCount(),
        info.copyEngineCount(),
        info.decoderCount(),
        info.encoderCount(),
        info.jpegCount(),
        info.ofaCount(),
        placements);
  }

  /**
   * The MIG devices (one per compute instance) on a GPU whose MIG mode is on, ordered by placement
   * and compute instance.
   */
  List<MigDevice> devices(Device gpu, List<MigProfile> profiles) {
    List<MigDevice> devices = new ArrayList<>();
    int slots = nvml.maxMigDeviceCount(gpu);
    for (int index = 0; index < slots; index++) {
      nvml.migDeviceByIndex(gpu, index).ifPresent(mig -> devices.add(device(gpu, mig, profiles)));
    }
    devices.sort(
        Comparator.comparingInt((MigDevice d) -> d.placement().start())
            .thenComparingInt(MigDevice::gpuInstanceId)
            .thenComparingInt(MigDevice::computeInstanceId));
    return List.copyOf(devices);
  }

  private MigDevice device(Device gpu, Device mig, List<MigProfile> profiles) {
    int gpuInstanceId = nvml.gpuInstanceId(mig);
    int computeInstanceId = nvml.computeInstanceId(mig);
    GpuInstanceInfo gi = nvml.gpuInstanceInfo(nvml.gpuInstanceById(gpu, gpuInstanceId));
    String profile =
        profileName(profiles, gi.profileId()).orElse("unknown-profile-" + gi.profileId());
    return new MigDevice(
        nvml.uuid(mig),
        gpuInstanceId,
        computeInstanceId,
        gi.profileId(),
        profile,
        placement(gi.placement()),
        nvml.memoryInfo(mig).total());
  }

  private static Optional<String> profileName(List<MigProfile> profiles, int profileId) {
    return profiles.stream()
        .filter(p -> p.profileId() == profileId)
        .map(MigProfile::name)
        .findFirst();
  }

  private static MigPlacement placement(Placement p) {
    return new MigPlacement(p.start(), p.size());
  }
}
