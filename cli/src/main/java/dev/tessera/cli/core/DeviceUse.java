package dev.tessera.cli.core;

import dev.tessera.cel.Quantity;
import java.util.List;
import java.util.Map;

/**
 * One allocated claim's hold on a device: which request got it, the capacity it consumed (shared
 * devices), and the pods the claim is reserved for.
 */
public record DeviceUse(
    ClaimRef claim, String request, Map<String, Quantity> consumed, List<String> pods) {
  public DeviceUse {
    consumed = Map.copyOf(consumed);
    pods = List.copyOf(pods);
  }
}
