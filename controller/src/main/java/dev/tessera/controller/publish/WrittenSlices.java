package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the controller last wrote to each node's pool, until its slice cache shows it. The writes
 * name the node again (their watch events), and a reconcile that ran on a cache still missing some
 * of them would take the pool for incomplete and write a whole new generation, whose own events
 * could meet the same half-updated cache again: a pool just published was written once more, or
 * several times (seen on a 3-node fleet, where a node's next reconcile comes at once). So a node
 * whose cache does not yet show its last writes is not planned; the events still to come name it
 * again. Past {@code patience} the cache is taken as it is (another writer may have changed the
 * slices meanwhile).
 */
final class WrittenSlices {

  /** Per slice name, the content digest written; null for a slice deleted. */
  private record Expected(Map<String, String> digests, Instant since) {}

  private final Map<String, Expected> byNode = new ConcurrentHashMap<>();
  private final Duration patience;

  WrittenSlices(Duration patience) {
    this.patience = patience;
  }

  /** The node's writes succeeded: its cache should show them. */
  void wrote(String node, List<SliceWrite> writes, Instant now) {
    if (writes.isEmpty()) {
      return;
    }
    var digests = new HashMap<String, String>();
    for (SliceWrite write : writes) {
      digests.put(
          write.name(),
          switch (write) {
            case SliceWrite.Create c -> SliceContentHash.annotated(c.slice());
            case SliceWrite.Update u -> SliceContentHash.annotated(u.slice());
            case SliceWrite.Delete d -> null;
          });
    }
    byNode.put(node, new Expected(digests, now));
  }

  /**
   * Whether the node's cached slices do not show its last writes yet (and the wait is not over);
   * once they do, or it is, the node's writes are forgotten.
   */
  boolean awaited(String node, List<ResourceSlice> cached, Instant now) {
    Expected expected = byNode.get(node);
    if (expected == null) {
      return false;
    }
    if (shows(cached, expected.digests()) || !now.isBefore(expected.since().plus(patience))) {
      byNode.remove(node, expected);
      return false;
    }
    return true;
  }

  /** The node's writes failed or its lead is gone: nothing to wait for. */
  void forget(String node) {
    byNode.remove(node);
  }

  private static boolean shows(List<ResourceSlice> cached, Map<String, String> written) {
    Map<String, String> present = SliceContentHash.byName(cached);
    for (var entry : written.entrySet()) {
      boolean shown =
          entry.getValue() == null
              ? !present.containsKey(entry.getKey())
              : entry.getValue().equals(present.get(entry.getKey()));
      if (!shown) {
        return false;
      }
    }
    return true;
  }
}
