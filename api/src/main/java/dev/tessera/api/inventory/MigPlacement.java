package dev.tessera.api.inventory;

/** Where a GPU instance sits: the first memory slice it uses and how many it spans. */
public record MigPlacement(int start, int size) {
  public MigPlacement {
    if (start < 0 || size <= 0) {
      throw new IllegalArgumentException("invalid placement start=" + start + " size=" + size);
    }
  }
}
