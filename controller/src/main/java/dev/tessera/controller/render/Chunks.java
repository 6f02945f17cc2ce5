package dev.tessera.controller.render;

import java.util.ArrayList;
import java.util.List;

/** Splits a list into consecutive runs of at most a given size (order kept). */
final class Chunks {
  private Chunks() {}

  static <T> List<List<T>> of(List<T> items, int size) {
    var chunks = new ArrayList<List<T>>();
    for (int i = 0; i < items.size(); i += size) {
      chunks.add(List.copyOf(items.subList(i, Math.min(items.size(), i + size))));
    }
    return chunks;
  }
}
