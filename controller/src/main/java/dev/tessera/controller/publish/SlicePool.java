package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A slice's pool and generation as the controller reads them from its cache (pure). The cache holds
 * slices' metadata only, as the API server sends it ({@link MetadataInformers}), so the controller
 * writes both on every slice as annotations too; a slice written before it did says its pool only
 * through its owner Node, and its generation only in its spec, which must be read.
 */
final class SlicePool {
  /** The pool (its node) a slice belongs to, as an annotation. */
  static final String POOL = "gpu.tessera.dev/pool";

  /** The pool generation a slice belongs to, as an annotation. */
  static final String GENERATION = "gpu.tessera.dev/pool-generation";

  private SlicePool() {}

  /**
   * The slice's pool: its annotation, else its spec (a whole slice), else the Node that owns it
   * (every pool Tessera wrote is its node's); "" when none says.
   */
  static String name(ResourceSlice slice) {
    String annotated = annotation(slice, POOL);
    if (annotated != null) {
      return annotated;
    }
    if (slice.getSpec() != null && slice.getSpec().getPool() != null) {
      return slice.getSpec().getPool().getName();
    }
    if (slice.getMetadata().getOwnerReferences() != null) {
      for (OwnerReference owner : slice.getMetadata().getOwnerReferences()) {
        if ("Node".equals(owner.getKind()) && Boolean.TRUE.equals(owner.getController())) {
          return owner.getName();
        }
      }
    }
    return "";
  }

  /**
   * The slice's pool generation: its annotation, else its spec; empty for the metadata of a slice
   * that carries no annotation (its spec has to be read).
   */
  static OptionalLong generation(ResourceSlice slice) {
    String annotated = annotation(slice, GENERATION);
    if (annotated != null) {
      try {
        return OptionalLong.of(Long.parseLong(annotated));
      } catch (NumberFormatException e) {
        // Not ours to trust (edited by hand): the spec says it.
      }
    }
    if (slice.getSpec() != null
        && slice.getSpec().getPool() != null
        && slice.getSpec().getPool().getGeneration() != null) {
      return OptionalLong.of(slice.getSpec().getPool().getGeneration());
    }
    return OptionalLong.empty();
  }

  /** Whether the slice says both its pool and its generation in annotations. */
  static boolean annotated(ResourceSlice slice) {
    return annotation(slice, POOL) != null && annotation(slice, GENERATION) != null;
  }

  private static String annotation(ResourceSlice slice, String key) {
    Map<String, String> annotations = slice.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }
}
