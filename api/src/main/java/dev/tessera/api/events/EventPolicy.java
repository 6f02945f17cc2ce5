package dev.tessera.api.events;

import java.time.Duration;

/**
 * How Events are aggregated and limited.
 *
 * @param burst how many Events one object may get at once (client-go's spam filter: 25)
 * @param refill how long one more takes to be allowed after the burst (client-go: 5 minutes)
 * @param repeatWindow how long after its last occurrence an Event is patched again rather than
 *     written anew: the API server's default Event time-to-live (1 hour), past which a patch would
 *     meet a deleted Event
 * @param cacheSize how many Events and objects are remembered (client-go's LRU: 4096); the oldest
 *     is forgotten first, so memory stays bounded whatever the churn of claims
 */
public record EventPolicy(int burst, Duration refill, Duration repeatWindow, int cacheSize) {
  public static final EventPolicy CLIENT_GO =
      new EventPolicy(25, Duration.ofMinutes(5), Duration.ofHours(1), 4096);

  public EventPolicy {
    if (burst < 1 || cacheSize < 1 || refill.isNegative() || refill.isZero()) {
      throw new IllegalArgumentException("burst, cacheSize and refill must be positive");
    }
  }
}
