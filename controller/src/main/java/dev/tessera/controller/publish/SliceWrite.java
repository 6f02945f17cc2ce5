package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;

/** One write to the API server that brings a pool closer to what it should be. */
public sealed interface SliceWrite {

  /** The slice written. */
  String name();

  /** What the write does, as metrics and logs name it: create, update or delete. */
  default String operation() {
    return switch (this) {
      case Create c -> "create";
      case Update u -> "update";
      case Delete d -> "delete";
    };
  }

  record Create(ResourceSlice slice) implements SliceWrite {
    @Override
    public String name() {
      return slice.getMetadata().getName();
    }
  }

  /**
   * Replaces the slice of the same name, made against the resourceVersion the slice carries (the
   * one read).
   */
  record Update(ResourceSlice slice) implements SliceWrite {
    @Override
    public String name() {
      return slice.getMetadata().getName();
    }
  }

  record Delete(String name) implements SliceWrite {}
}
