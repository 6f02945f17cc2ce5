package dev.tessera.plugin.status;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who holds what on the node, for the GpuNode's status (pure): each held device with its claims and
 * their pods, how many whole GPUs are free, and the memory left on shared devices.
 *
 * @param gpusFree GPUs that are healthy and that no claim holds, whole or by one of its MIG
 *     devices: what a new exclusive claim could get
 * @param sharedMemoryFreeBytes over the devices held with sharing, the memory no MPS limit pins
 */
public record NodeUsage(
    int gpusTotal, int gpusFree, List<HeldDevice> devices, long sharedMemoryFreeBytes) {
  public NodeUsage {
    devices = List.copyOf(devices);
  }

  /**
   * @param pods the pods of each claim by UID, as known; a claim without an entry shows none
   */
  public static NodeUsage of(
      String pool,
      NodeInventory inventory,
      NodeHealth health,
      PreparedClaims claims,
      Map<String, List<String>> pods) {
    Map<String, List<Map.Entry<String, ClaimEntry>>> byDevice = new LinkedHashMap<>();
    Map<String, PreparedDevice> firstOf = new LinkedHashMap<>();
    Set<Integer> heldMinors = new HashSet<>();
    claims.claims().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            claim -> {
              for (PreparedDevice device : claim.getValue().devices()) {
                if (device.adminAccess() || !pool.equals(device.pool())) {
                  continue;
                }
                byDevice.computeIfAbsent(device.device(), d -> new ArrayList<>()).add(claim);
                firstOf.putIfAbsent(device.device(), device);
                minorOf(device.device()).ifPresent(heldMinors::add);
              }
            });
    var held = new ArrayList<HeldDevice>();
    long sharedFree = 0;
    for (var entry : byDevice.entrySet()) {
      String name = entry.getKey();
      PreparedDevice device = firstOf.get(name);
      var holders = new ArrayList<Holder>();
      long pinned = 0;
      for (var claim : entry.getValue()) {
        ClaimEntry c = claim.getValue();
        holders.add(
            new Holder(
                c.namespace(),
                c.name(),
                claim.getKey(),
                pods.getOrDefault(claim.getKey(), List.of())));
        pinned +=
            c.devices().stream()
                .filter(d -> d.device().equals(name) && d.settings().pinnedMemoryBytes() != null)
                .mapToLong(d -> d.settings().pinnedMemoryBytes())
                .findFirst()
                .orElse(0);
      }
      Long free = null;
      if (device.sharing() != SharingStrategy.EXCLUSIVE) {
        Optional<Long> memory = memoryOf(inventory, name);
        if (memory.isPresent()) {
          free = Math.max(0, memory.get() - pinned);
          sharedFree += free;
        }
      }
      held.add(new HeldDevice(name, device.uuid(), device.sharing().configName(), holders, free));
    }
    int free =
        (int)
            inventory.gpus().stream()
                .filter(gpu -> !heldMinors.contains(gpu.minor()))
                .filter(gpu -> health.healthy(new DeviceName.Gpu(gpu.minor()).value()))
                .count();
    return new NodeUsage(inventory.gpus().size(), free, held, sharedFree);
  }

  /** Bytes as a quantity a person reads: whole GiB where it is, else MiB (rounded down). */
  public static String quantity(long bytes) {
    long gib = 1L << 30;
    if (bytes % gib == 0) {
      return bytes / gib + "Gi";
    }
    return bytes / (1L << 20) + "Mi";
  }

  private static Optional<Integer> minorOf(String device) {
    try {
      return Optional.of(
          switch (DeviceName.parse(device)) {
            case DeviceName.Gpu g -> g.minor();
            case DeviceName.Mig m -> m.parentMinor();
          });
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<Long> memoryOf(NodeInventory inventory, String device) {
    for (Gpu gpu : inventory.gpus()) {
      if (new DeviceName.Gpu(gpu.minor()).value().equals(device)) {
        return Optional.of(gpu.memoryBytes());
      }
      for (MigDevice mig : gpu.migDevices()) {
        if (DeviceName.Mig.of(gpu.minor(), mig).value().equals(device)) {
          return Optional.of(mig.memoryBytes());
        }
      }
    }
    return Optional.empty();
  }
}
