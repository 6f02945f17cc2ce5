package dev.tessera.controller.publish;

import dev.tessera.controller.render.DesiredSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides the writes that turn a pool's existing slices into the desired ones (pure), following the
 * pool generation protocol: consumers trust only the highest generation, and only once it has
 * {@code resourceSliceCount} slices. So a change that touches one slice of an unchanged count is
 * written in place; anything more is written as a new generation, obsolete slices deleted first (a
 * consumer never sees more slices than the count), and nothing is written when nothing changed.
 */
public final class PoolReconciler {
  private final PoolSlices pool;

  public PoolReconciler(PoolSlices pool) {
    this.pool = pool;
  }

  public List<SliceWrite> reconcile(
      String nodeName, String nodeUid, List<DesiredSlice> desired, List<ResourceSlice> existing) {
    long current = existing.stream().mapToLong(PoolReconciler::generation).max().orElse(0);
    Map<String, ResourceSlice> byName = new LinkedHashMap<>();
    existing.forEach(s -> byName.put(s.getMetadata().getName(), s));

    List<ResourceSlice> atCurrent = pool.slices(nodeName, nodeUid, Math.max(current, 1), desired);
    List<ResourceSlice> changed =
        atCurrent.stream()
            .filter(s -> !sameSlice(s, byName.get(s.getMetadata().getName())))
            .toList();
    boolean sameNames =
        byName
            .keySet()
            .equals(
                atCurrent.stream()
                    .map(s -> s.getMetadata().getName())
                    .collect(java.util.stream.Collectors.toSet()));

    if (sameNames && changed.isEmpty()) {
      // Slices written before they said their pool in annotations are read whole at every start
      // of the controller (SliceGenerations) until written again: once, in place, content
      // unchanged.
      return atCurrent.stream()
          .filter(s -> !SlicePool.annotated(byName.get(s.getMetadata().getName())))
          .map(s -> update(s, byName))
          .toList();
    }
    var writes = new ArrayList<SliceWrite>();
    if (sameNames && changed.size() == 1 && current > 0) {
      writes.add(update(changed.get(0), byName));
      return writes;
    }
    // A first publish is generation 1, rendered as such above: its slices and their digests are
    // those already made (each digest is a serialization of the slice).
    List<ResourceSlice> next =
        current == 0 ? atCurrent : pool.slices(nodeName, nodeUid, current + 1, desired);
    var nextNames = next.stream().map(s -> s.getMetadata().getName()).toList();
    byName.keySet().stream()
        .filter(n -> !nextNames.contains(n))
        .forEach(n -> writes.add(new SliceWrite.Delete(n)));
    for (ResourceSlice slice : next) {
      writes.add(
          byName.containsKey(slice.getMetadata().getName())
              ? update(slice, byName)
              : new SliceWrite.Create(slice));
    }
    return writes;
  }

  /**
   * A slice's generation; the caller reads what the cached metadata does not say (a slice written
   * before the controller annotated it) from the slice itself.
   */
  private static long generation(ResourceSlice slice) {
    return SlicePool.generation(slice)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "slice " + slice.getMetadata().getName() + " says no pool generation"));
  }

  /**
   * An update replaces the whole slice, made against the version read: a stale read is refused
   * (409) instead of overwriting a newer slice, and no field of the old content can survive it.
   */
  private static SliceWrite update(ResourceSlice slice, Map<String, ResourceSlice> existing) {
    slice
        .getMetadata()
        .setResourceVersion(
            existing.get(slice.getMetadata().getName()).getMetadata().getResourceVersion());
    return new SliceWrite.Update(slice);
  }

  /**
   * Whether the existing slice already says what the desired one says: same content digest (the
   * controller holds only slices' metadata, see {@link SliceContentHash}).
   */
  private static boolean sameSlice(ResourceSlice desired, ResourceSlice existing) {
    if (existing == null || existing.getMetadata().getAnnotations() == null) {
      return false;
    }
    return Objects.equals(
        SliceContentHash.annotated(desired), SliceContentHash.annotated(existing));
  }
}
