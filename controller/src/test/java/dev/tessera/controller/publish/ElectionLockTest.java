package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class ElectionLockTest {
  private static final Instant T0 = Instant.parse("2026-12-07T03:00:00Z");

  private final TestClock clock = new TestClock(T0);
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final FlakyLease lease = new FlakyLease();
  private final ElectionLock lock = new ElectionLock(lease, clock, metrics);

  @Test
  void aLeadersFailedRenewalsAreCountedAndToldWhenTheLeadIsLost() {
    lock.create(null, record("me"));
    clock.advance(Duration.ofSeconds(2));
    lock.update(null, record("me"));

    clock.advance(Duration.ofSeconds(2));
    lease.failing = true;
    assertThatThrownBy(() -> lock.get(null)).isInstanceOf(KubernetesClientException.class);
    clock.advance(Duration.ofSeconds(2));
    assertThatThrownBy(() -> lock.update(null, record("me")))
        .isInstanceOf(KubernetesClientException.class);

    var renewals = lock.renewals();
    assertThat(renewals.lastWritten()).isEqualTo(T0.plusSeconds(2));
    assertThat(renewals.since(T0.plusSeconds(9))).isEqualTo(Duration.ofSeconds(7));
    assertThat(renewals.failedSince()).isEqualTo(2);
    assertThat(renewals.lastFailure()).startsWith("update after ").contains("etcd is slow");
    assertThat(failures()).isEqualTo(2);

    // A renewal that gets through starts the count again; the total stays.
    lease.failing = false;
    lock.update(null, record("me"));
    assertThat(lock.renewals().failedSince()).isZero();
    assertThat(lock.renewals().lastWritten()).isEqualTo(T0.plusSeconds(6));
    assertThat(failures()).isEqualTo(2);
  }

  @Test
  void aFollowersFailedAsksAreNotRenewals() {
    lease.failing = true;
    assertThatThrownBy(() -> lock.get(null)).isInstanceOf(KubernetesClientException.class);
    assertThat(lock.renewals().failedSince()).isZero();
    assertThat(lock.renewals().since(T0)).isNull();
    assertThat(failures()).isZero();
  }

  @Test
  void afterTheLeadIsReleasedFailuresAreNotRenewals() {
    lock.create(null, record("me"));
    lock.update(null, record(null)); // a release: no holder
    lease.failing = true;
    assertThatThrownBy(() -> lock.get(null)).isInstanceOf(KubernetesClientException.class);
    assertThat(failures()).isZero();
  }

  @Test
  void failuresWhileTheLeadIsGivenUpAreTheReleases() {
    lock.create(null, record("me"));
    lock.releasing();
    lease.failing = true;
    assertThatThrownBy(() -> lock.get(null)).isInstanceOf(KubernetesClientException.class);
    assertThat(failures()).isZero();
  }

  @Test
  void aWriteThatNamesAnotherHolderIsNotHoldingTheLead() {
    lock.update(null, record("other"));
    lease.failing = true;
    assertThatThrownBy(() -> lock.get(null)).isInstanceOf(KubernetesClientException.class);
    assertThat(failures()).isZero();
  }

  @Test
  void aTryUnderWayPastTheRenewDeadlineIsHungAndOneThatEndsIsNot() {
    Duration deadline = Duration.ofSeconds(10);
    // A write that takes 3 s; its record's renew time is T0 + 1 s, taken before it.
    clock.advance(Duration.ofSeconds(1));
    var renewed = record("me");
    lease.takes = Duration.ofSeconds(3);
    lock.update(null, renewed);
    lease.takes = Duration.ZERO;
    assertThat(lock.renewals().renewTime()).isEqualTo(T0.plusSeconds(1));
    assertThat(lock.renewals().hung(T0.plusSeconds(60), deadline))
        .as("no try under way: fabric8 judges the deadline itself")
        .isFalse();

    // The next try's read, seen while under way.
    var seen = new ArrayList<ElectionLock.Renewals>();
    lease.during = () -> seen.add(lock.renewals());
    clock.advance(Duration.ofSeconds(7)); // T0 + 11 s: at the deadline
    lock.get(null);
    clock.advance(Duration.ofMillis(1));
    lock.get(null);

    assertThat(seen.get(0).requestSince()).isEqualTo(T0.plusSeconds(11));
    assertThat(seen.get(0).hung(clock.instant().minusMillis(1), deadline))
        .as("under way, at the deadline")
        .isFalse();
    assertThat(seen.get(1).hung(clock.instant(), deadline))
        .as("under way, just past the deadline")
        .isTrue();
    assertThat(lock.renewals().requestSince()).as("once the read returned").isNull();
    assertThat(lock.renewals().hung(clock.instant(), deadline)).isFalse();
  }

  @Test
  void aFailedTryIsNoLongerUnderWay() {
    lock.create(null, record("me"));
    lease.failing = true;
    assertThatThrownBy(() -> lock.update(null, record("me")))
        .isInstanceOf(KubernetesClientException.class);
    assertThat(lock.renewals().requestSince()).isNull();
    assertThat(lock.renewals().hung(T0.plusSeconds(60), Duration.ofSeconds(10))).isFalse();
  }

  private double failures() {
    return metrics.get("tessera.controller.election.renewal.failures").counter().count();
  }

  private LeaderElectionRecord record(String holder) {
    ZonedDateTime now = clock.instant().atZone(ZoneOffset.UTC);
    return new LeaderElectionRecord(holder, Duration.ofSeconds(15), now, now, 0);
  }

  /**
   * A Lease whose every request fails while {@code failing}; its writes take {@code takes}; {@code
   * during} runs inside each read.
   */
  private final class FlakyLease implements Lock {
    volatile boolean failing;
    volatile Duration takes = Duration.ZERO;
    volatile Runnable during = () -> {};

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      during.run();
      fail();
      return null;
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      fail();
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      clock.advance(takes);
      fail();
    }

    private void fail() {
      if (failing) {
        throw new KubernetesClientException("etcd is slow");
      }
    }

    @Override
    public String identity() {
      return "me";
    }

    @Override
    public String describe() {
      return "Lease: tessera/tessera-controller (me)";
    }
  }
}
