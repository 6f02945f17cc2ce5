package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;

/** One write to the API server that brings a pool closer to what it should be. */
public sealed interface SliceWrite {

  record Create(ResourceSlice slice) implements SliceWrite {}

  /**
   * Replaces the slice of the same name, made against the resourceVersion the slice carries (the
   * one read).
   */
  record Update(ResourceSlice slice) implements SliceWrite {}

  record Delete(String name) implements SliceWrite {}
}
