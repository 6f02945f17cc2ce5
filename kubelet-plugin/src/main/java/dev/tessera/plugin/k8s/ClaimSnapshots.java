package dev.tessera.plugin.k8s;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Each claim as this plugin last read or wrote it, for a short while: a status write that follows a
 * prepare starts from the claim prepare has just read instead of reading it again. A snapshot is
 * only a starting point — the write carries its resourceVersion, so one gone stale is refused with
 * a conflict and read again — and it is kept only for {@code freshFor}, so a claim unprepared long
 * after its prepare (most are) is read again first rather than met with a refused write.
 */
final class ClaimSnapshots {
  /** More than a node prepares within {@code freshFor}; the oldest go first beyond it. */
  private static final int MAX = 256;

  private record Snapshot(ResourceClaim claim, Instant at) {}

  private final Duration freshFor;
  private final Clock clock;
  private final Map<String, Snapshot> byUid = new LinkedHashMap<>();

  ClaimSnapshots(Duration freshFor, Clock clock) {
    this.freshFor = freshFor;
    this.clock = clock;
  }

  /**
   * Keeps {@code claim} as the latest state of its UID seen now (the caller no longer edits it).
   */
  synchronized void remember(ResourceClaim claim) {
    if (claim.getMetadata() == null || claim.getMetadata().getUid() == null) {
      return;
    }
    Instant now = clock.instant();
    String uid = claim.getMetadata().getUid();
    byUid.remove(uid);
    byUid.put(uid, new Snapshot(claim, now));
    Iterator<Snapshot> oldest = byUid.values().iterator();
    while (oldest.hasNext()) {
      Snapshot next = oldest.next();
      if (byUid.size() <= MAX && !stale(next, now)) {
        break;
      }
      oldest.remove();
    }
  }

  /** The claim of this UID as last seen, if seen within {@code freshFor}; never to be edited. */
  synchronized Optional<ResourceClaim> fresh(String uid) {
    Snapshot snapshot = byUid.get(uid);
    if (snapshot == null || stale(snapshot, clock.instant())) {
      return Optional.empty();
    }
    return Optional.of(snapshot.claim());
  }

  /** Drops what is known of this UID (a write of it was refused, or failed). */
  synchronized void forget(String uid) {
    byUid.remove(uid);
  }

  private boolean stale(Snapshot snapshot, Instant now) {
    return snapshot.at().plus(freshFor).isBefore(now);
  }
}
