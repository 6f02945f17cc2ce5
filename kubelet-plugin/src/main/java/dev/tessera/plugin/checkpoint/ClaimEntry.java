package dev.tessera.plugin.checkpoint;

import dev.tessera.plugin.prepare.PreparedDevice;
import java.util.List;

/** What the checkpoint remembers of one claim. */
public record ClaimEntry(
    ClaimState state, String namespace, String name, List<PreparedDevice> devices) {
  public ClaimEntry {
    devices = List.copyOf(devices);
  }

  public ClaimEntry withState(ClaimState newState) {
    return new ClaimEntry(newState, namespace, name, devices);
  }
}
