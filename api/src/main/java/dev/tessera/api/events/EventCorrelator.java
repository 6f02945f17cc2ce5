package dev.tessera.api.events;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what an occurrence becomes, as client-go's EventCorrelator does: first the spam filter (a
 * token bucket per object and source: a flapping object cannot flood the API server), then
 * deduplication (the same object, type, reason, message and source within the repeat window is one
 * Event whose {@code count} and {@code lastTimestamp} grow). Pure but stateful: one instance per
 * recorder, used from one thread; time is passed in.
 */
public final class EventCorrelator {
  /** The longest object name kept in an Event's name: room for the dot and 16 hex digits. */
  private static final int MAX_NAME_PREFIX = 253 - 17;

  private record Key(InvolvedObject object, EventType type, String reason, String message) {}

  private final EventSource source;
  private final EventPolicy policy;
  private final Map<Key, EventData> seen;
  private final Map<InvolvedObject, TokenBucket> buckets;
  private long lastNameNanos;

  public EventCorrelator(EventSource source, EventPolicy policy) {
    this.source = source;
    this.policy = policy;
    this.seen = lru(policy.cacheSize());
    this.buckets = lru(policy.cacheSize());
  }

  /** The write for the occurrence at {@code now}; empty when the spam filter drops it. */
  public Optional<EventWrite> decide(Occurrence occurrence, Instant now) {
    InvolvedObject object = occurrence.object();
    TokenBucket bucket = buckets.get(object);
    if (bucket == null) {
      bucket = TokenBucket.full(policy.burst(), now);
    }
    TokenBucket after = bucket.take(now, policy.burst(), policy.refill());
    if (after == null) {
      buckets.put(object, bucket.at(now, policy.burst(), policy.refill()));
      return Optional.empty();
    }
    buckets.put(object, after);

    var key = new Key(object, occurrence.type(), occurrence.reason(), occurrence.message());
    EventData earlier = seen.get(key);
    if (earlier != null && !now.isAfter(earlier.lastTimestamp().plus(policy.repeatWindow()))) {
      EventData repeat =
          new EventData(
              earlier.namespace(),
              earlier.name(),
              object,
              earlier.type(),
              earlier.reason(),
              earlier.message(),
              source,
              earlier.count() + 1,
              earlier.firstTimestamp(),
              now);
      seen.put(key, repeat);
      return Optional.of(new EventWrite.Increment(repeat));
    }
    EventData created =
        new EventData(
            object.eventNamespace(),
            name(object, uniqueNanos(now)),
            object,
            occurrence.type(),
            occurrence.reason(),
            occurrence.message(),
            source,
            1,
            now,
            now);
    seen.put(key, created);
    return Optional.of(new EventWrite.Create(created));
  }

  /** The time in nanoseconds, made later than the last name's so two names never collide. */
  private long uniqueNanos(Instant at) {
    long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
    lastNameNanos = Math.max(nanos, lastNameNanos + 1);
    return lastNameNanos;
  }

  /**
   * client-go's naming: the object's name, a dot, the time in nanoseconds in hex — unique per
   * occurrence, and sorted by time when listed.
   */
  static String name(InvolvedObject object, long nanos) {
    String prefix = object.name();
    if (prefix.length() > MAX_NAME_PREFIX) {
      prefix = prefix.substring(0, MAX_NAME_PREFIX);
    }
    return prefix + "." + Long.toHexString(nanos);
  }

  private static <K, V> Map<K, V> lru(int size) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > size;
      }
    };
  }
}
