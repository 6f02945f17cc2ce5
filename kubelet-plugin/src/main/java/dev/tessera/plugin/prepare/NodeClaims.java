package dev.tessera.plugin.prepare;

import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import java.io.IOException;

/**
 * The node's prepared claims: the lock every prepare, unprepare and start-up recovery holds (shared
 * with any other plugin process on the node), the checkpoint they are kept in, and the latest
 * value, an immutable snapshot replaced whole under the lock and read without it — so metrics and
 * the health stream never wait behind a prepare, which holds the lock through API calls, MIG work
 * and driver tools.
 */
public final class NodeClaims {
  private final CheckpointStore store;
  private final NodeLock lock;
  private final String bootId;
  private volatile PreparedClaims current;

  /** Starts from the checkpoint as this boot sees it. */
  public NodeClaims(CheckpointStore store, NodeLock lock, String bootId) {
    this.store = store;
    this.lock = lock;
    this.bootId = bootId;
    this.current = store.load(bootId);
  }

  NodeLock.Held lock() throws PrepareException {
    return lock.acquire();
  }

  /**
   * Reads the checkpoint again: another plugin process on the node (the old or new instance during
   * a rolling upgrade) may have written it since. Called with the lock held. Always, not "when
   * changed": a file's time and inode can repeat across two quick atomic rewrites, and the read of
   * a few KiB is cheap next to the fsyncs of a prepare.
   */
  PreparedClaims refresh() {
    current = store.load(bootId);
    return current;
  }

  /** The claims as last read or written; never waits, may show a prepare's intermediate state. */
  public PreparedClaims current() {
    return current;
  }

  /**
   * Writes {@code next} to the checkpoint, then makes it the current value.
   *
   * @param durability {@link Durability#DURABLE} for a record whose loss in a power cut would leave
   *     something behind that outlives the reboot: an intent before device work, and what MIG work
   *     made (MIG mode a claim switched on stays on across a reboot). {@link Durability#WHOLE} for
   *     the rest: after a reboot the boot ID demotes every claim of the checkpoint and the start-up
   *     rolls each back, so a lost "prepared" or "gone" record only changes which claims the
   *     start-up rolls back, among claims none of whose device work outlives a reboot.
   */
  void save(PreparedClaims next, Durability durability) throws PrepareException {
    try {
      store.save(next, durability);
      current = next;
    } catch (IOException e) {
      throw new PrepareException(
          "cannot write checkpoint " + store.file() + ": " + e.getMessage(), e);
    }
  }

  /** What {@link #save} would write for {@code next}; writes nothing and changes nothing. */
  byte[] render(PreparedClaims next) {
    return store.render(next);
  }
}
