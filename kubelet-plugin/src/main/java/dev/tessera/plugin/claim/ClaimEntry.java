package dev.tessera.plugin.claim;

import java.util.List;

/**
 * What the checkpoint remembers of one claim.
 *
 * @param createdMig the MIG devices this plugin creates for the claim, recorded before they are
 *     made (empty in checkpoints written before dynamic MIG)
 */
public record ClaimEntry(
    ClaimState state,
    String namespace,
    String name,
    List<PreparedDevice> devices,
    List<CreatedMig> createdMig) {
  public ClaimEntry {
    devices = List.copyOf(devices);
    createdMig = createdMig == null ? List.of() : List.copyOf(createdMig);
  }

  /** A claim without dynamic MIG devices. */
  public ClaimEntry(ClaimState state, String namespace, String name, List<PreparedDevice> devices) {
    this(state, namespace, name, devices, List.of());
  }

  public ClaimEntry withState(ClaimState newState) {
    return new ClaimEntry(newState, namespace, name, devices, createdMig);
  }

  public ClaimEntry withCreatedMig(List<CreatedMig> created) {
    return new ClaimEntry(state, namespace, name, devices, created);
  }
}
