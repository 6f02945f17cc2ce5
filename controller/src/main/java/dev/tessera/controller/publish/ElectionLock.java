package dev.tessera.controller.publish;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election's Lease as fabric8's elector reads and writes it, keeping what became of each try.
 * fabric8 logs a failed renewal at debug only, and a leader that gives up its lead after its renew
 * deadline then exits without saying why. Here every failed read or write of the Lease while this
 * replica holds it is logged and counted, and {@link #renewals()} says, when the lead is lost, when
 * it was last renewed and what failed since.
 */
final class ElectionLock implements Lock {
  private static final Logger LOG = LoggerFactory.getLogger(ElectionLock.class);

  private final Lock lease;
  private final Clock clock;
  private final Counter failures;
  private volatile boolean holding;
  private volatile Instant written;
  private volatile long writeTookMs;
  private volatile int failedSinceWritten;
  private volatile String lastFailure;
  private volatile Instant renewTime;
  private volatile Instant requestSince;

  ElectionLock(Lock lease, Clock clock, MeterRegistry metrics) {
    this.lease = lease;
    this.clock = clock;
    this.failures =
        Counter.builder("tessera.controller.election.renewal.failures")
            .description(
                "Reads and writes of the election Lease that failed while this replica led")
            .register(metrics);
  }

  /**
   * What became of this replica's renewals: when it last wrote the Lease and how long that write
   * took, the renew time that write gave the Lease (the other replicas count the Lease's duration
   * from it), how many reads and writes failed since while it held it, the last failure, and since
   * when a read or write of the Lease has been under way, if one is. None failed and an old write:
   * the elector made no tries (its threads had no CPU, or were blocked).
   */
  record Renewals(
      Instant lastWritten,
      long writeTookMs,
      Instant renewTime,
      int failedSince,
      String lastFailure,
      Instant requestSince) {
    /** How long before {@code now} the Lease was last written; null if never. */
    Duration since(Instant now) {
      return lastWritten == null ? null : Duration.between(lastWritten, now);
    }

    /**
     * Whether a read or write of the Lease is under way while more than {@code bound} has passed
     * since the renew time last written. fabric8's elector judges its deadline only between its
     * tries, so a try that never ends (an answer that stalls after its headers) is never judged;
     * one that fails is, by fabric8 itself, and is not this.
     */
    boolean hung(Instant now, Duration bound) {
      return requestSince != null && renewTime != null && now.isAfter(renewTime.plus(bound));
    }
  }

  Renewals renewals() {
    // The request first: a renewal that ends between the two reads has written its renew time
    // before it cleared its request, so a torn read never judges a finished renewal hung.
    Instant request = requestSince;
    return new Renewals(written, writeTookMs, renewTime, failedSinceWritten, lastFailure, request);
  }

  /**
   * The lead is being given up (shutdown): a failure from now on is the release's, which fabric8
   * logs itself (a helm uninstall that removes the controller's RBAC first makes one).
   */
  void releasing() {
    holding = false;
  }

  @Override
  public LeaderElectionRecord get(KubernetesClient client) {
    Instant begun = clock.instant();
    requestSince = begun;
    try {
      return lease.get(client);
    } catch (RuntimeException e) {
      failed("read", begun, e);
      throw e;
    } finally {
      requestSince = null;
    }
  }

  @Override
  public void create(KubernetesClient client, LeaderElectionRecord record) {
    write("create", () -> lease.create(client, record), record);
  }

  @Override
  public void update(KubernetesClient client, LeaderElectionRecord record) {
    write("update", () -> lease.update(client, record), record);
  }

  private void write(String what, Runnable request, LeaderElectionRecord record) {
    Instant begun = clock.instant();
    requestSince = begun;
    try {
      try {
        request.run();
      } catch (RuntimeException e) {
        failed(what, begun, e);
        throw e;
      }
      // A release writes no holder: from then on a failure is no longer a renewal's.
      holding = Objects.equals(record.getHolderIdentity(), identity());
      written = clock.instant();
      writeTookMs = Duration.between(begun, written).toMillis();
      renewTime = record.getRenewTime() == null ? begun : record.getRenewTime().toInstant();
      failedSinceWritten = 0;
    } finally {
      requestSince = null;
    }
  }

  private void failed(String what, Instant begun, RuntimeException e) {
    if (!holding) {
      // A follower's asks fail alike during an outage, every retry period: nothing it holds is at
      // stake, and the elector asks again.
      return;
    }
    Instant now = clock.instant();
    failures.increment();
    failedSinceWritten++;
    lastFailure = "%s after %d ms: %s".formatted(what, Duration.between(begun, now).toMillis(), e);
    Instant last = written;
    LOG.atWarn()
        .addKeyValue("lease", describe())
        .addKeyValue("request", what)
        .addKeyValue("tookMs", Duration.between(begun, now).toMillis())
        .addKeyValue("sinceRenewedMs", last == null ? -1 : Duration.between(last, now).toMillis())
        .addKeyValue("error", String.valueOf(e))
        .log("renewing the lead failed; the elector tries again until its renew deadline");
  }

  @Override
  public String identity() {
    return lease.identity();
  }

  @Override
  public String describe() {
    return lease.describe();
  }
}
