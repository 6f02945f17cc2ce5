package dev.tessera.plugin.k8s;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/** A clock the test moves. */
final class MutableClock extends Clock {
  private Instant now;

  MutableClock(Instant now) {
    this.now = now;
  }

  void advance(Duration by) {
    now = now.plus(by);
  }

  ZonedDateTime now() {
    return ZonedDateTime.ofInstant(now, ZoneOffset.UTC);
  }

  @Override
  public ZoneOffset getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
