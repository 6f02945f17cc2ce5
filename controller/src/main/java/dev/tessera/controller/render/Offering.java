package dev.tessera.controller.render;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** How a node's GPUs are offered to the scheduler (node label {@code gpu.tessera.dev/offering}). */
public enum Offering {
  /** A device per GPU. */
  EXCLUSIVE,
  /** The MIG devices that exist; a GPU in MIG mode is not offered whole. */
  MIG_STATIC,
  /** Per GPU the whole GPU and every MIG placement, kept apart by shared counters. */
  MIG_DYNAMIC,
  /** A device per GPU that many claims can share by memory (consumable capacity). */
  SHARED;

  public static final String NODE_LABEL = "gpu.tessera.dev/offering";

  /** The label value, e.g. {@code mig-dynamic}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static Optional<Offering> fromLabel(String label) {
    return Arrays.stream(values()).filter(o -> o.label().equals(label)).findFirst();
  }
}
