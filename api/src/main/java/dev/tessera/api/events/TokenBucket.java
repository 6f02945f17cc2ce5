package dev.tessera.api.events;

import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket as a value: {@code burst} tokens at most, one more every {@code refill}. Taking
 * returns the bucket after the take, or null when it is empty (the caller drops the event).
 */
record TokenBucket(double tokens, Instant last) {

  static TokenBucket full(int burst, Instant now) {
    return new TokenBucket(burst, now);
  }

  /** The bucket with one token taken at {@code now}, or null when none is left. */
  TokenBucket take(Instant now, int burst, Duration refill) {
    double elapsed = Math.max(0, Duration.between(last, now).toNanos());
    double refilled = Math.min(burst, tokens + elapsed / refill.toNanos());
    Instant at = now.isAfter(last) ? now : last;
    if (refilled < 1) {
      return null;
    }
    return new TokenBucket(refilled - 1, at);
  }

  /** The bucket refilled up to {@code now}, without taking (to keep it after a refused take). */
  TokenBucket at(Instant now, int burst, Duration refill) {
    double elapsed = Math.max(0, Duration.between(last, now).toNanos());
    return new TokenBucket(
        Math.min(burst, tokens + elapsed / refill.toNanos()), now.isAfter(last) ? now : last);
  }
}
