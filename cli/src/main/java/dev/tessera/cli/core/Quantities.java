package dev.tessera.cli.core;

import dev.tessera.cel.Quantity;

/** fabric8's quantities as the CEL library's, so one arithmetic serves selectors and sums. */
public final class Quantities {
  private Quantities() {}

  public static Quantity of(io.fabric8.kubernetes.api.model.Quantity quantity) {
    return Quantity.parse(quantity.toString());
  }
}
