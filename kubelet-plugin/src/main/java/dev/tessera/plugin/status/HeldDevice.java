package dev.tessera.plugin.status;

import java.util.List;

/**
 * One device of the node that claims hold, and who.
 *
 * @param sharing the sharing strategy it is held with ({@code Exclusive}, {@code TimeSlicing},
 *     {@code MPS})
 * @param memoryFreeBytes for a shared device, its memory not pinned by an MPS holder's limit; null
 *     for an exclusive one, or a device the inventory does not know (a MIG device made since)
 */
public record HeldDevice(
    String device, String uuid, String sharing, List<Holder> holders, Long memoryFreeBytes) {
  public HeldDevice {
    holders = List.copyOf(holders);
  }
}
