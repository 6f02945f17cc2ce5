package dev.tessera.plugin.metrics;

import java.util.List;

/**
 * A claim that holds a device, as its series are labelled.
 *
 * @param pods the pods reserving the claim ({@code status.reservedFor}), sorted; empty until they
 *     are known (after a restart, until the claim is read again)
 * @param consumedMemoryBytes the memory the scheduler counted out of a shared GPU for this claim,
 *     or {@code null} where it consumed none (a whole device)
 */
public record Holder(
    String namespace, String name, String uid, List<String> pods, Long consumedMemoryBytes) {
  /** The labels of an unheld device's series: empty. */
  public static final Holder NONE = new Holder("", "", "", List.of(), null);

  public Holder {
    pods = pods.stream().sorted().toList();
  }
}
