package dev.tessera.plugin.metrics;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Decides which devices are sampled and which series each has: every GPU and MIG device of the node
 * (the inventory's, and the MIG devices prepare made for claims), each with one series per claim
 * that holds it, or one with empty claim labels when none does. A released claim is simply no
 * longer here, so its series go at the next sample. Pure: the same inputs give the same plan.
 */
public final class SeriesPlanner {
  private final String pool;

  /**
   * @param pool this node's pool: only devices of it are sampled
   */
  public SeriesPlanner(String pool) {
    this.pool = pool;
  }

  /**
   * @param details what is known of a claim beyond the checkpoint (its pods, its consumed memory),
   *     by claim UID; empty when it is not known (yet)
   */
  public List<SampledDevice> plan(
      NodeInventory inventory,
      PreparedClaims claims,
      Function<String, Optional<ClaimDetails>> details) {
    Map<String, String> uuids = new LinkedHashMap<>();
    for (Gpu gpu : inventory.gpus()) {
      uuids.put(new DeviceName.Gpu(gpu.minor()).value(), gpu.uuid());
      for (MigDevice mig : gpu.migDevices()) {
        uuids.put(DeviceName.Mig.of(gpu.minor(), mig).value(), mig.uuid());
      }
    }
    Map<String, List<Holder>> holders = new LinkedHashMap<>();
    claims
        .claims()
        .forEach(
            (uid, entry) -> {
              // A claim being prepared (or rolled back) holds nothing yet, or nothing any more.
              if (entry.state() != ClaimState.PrepareCompleted) {
                return;
              }
              Optional<ClaimDetails> known = details.apply(uid);
              for (PreparedDevice device : devicesHere(entry)) {
                uuids.putIfAbsent(device.device(), device.uuid()); // a MIG device made for it
                holders
                    .computeIfAbsent(device.device(), name -> new ArrayList<>())
                    .add(holder(uid, entry, device.device(), known));
              }
            });
    return uuids.entrySet().stream()
        .map(
            e ->
                new SampledDevice(
                    e.getKey(), e.getValue(), holders.getOrDefault(e.getKey(), List.of())))
        .toList();
  }

  /** The claim's devices of this pool, each once (two shares of one GPU are one holder). */
  private List<PreparedDevice> devicesHere(ClaimEntry entry) {
    var seen = new LinkedHashSet<String>();
    return entry.devices().stream()
        .filter(d -> pool.equals(d.pool()) && seen.add(d.device()))
        .toList();
  }

  private static Holder holder(
      String uid, ClaimEntry entry, String device, Optional<ClaimDetails> details) {
    return new Holder(
        entry.namespace(),
        entry.name(),
        uid,
        details.map(ClaimDetails::pods).orElse(List.of()),
        details.map(d -> d.consumedMemoryBytes().get(device)).orElse(null));
  }
}
