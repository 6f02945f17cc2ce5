package dev.tessera.controller.publish;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets several controller replicas run with one publishing: the replica holding the Lease {@code
 * tessera-controller} leads; the others wait, their caches filled ({@link
 * NodePoolController#watch}). A replica that loses the lead exits, so its Deployment restarts it as
 * a follower, never two writers. At shutdown the lead is released, so another replica takes over at
 * once.
 *
 * <p>A leader also watches its own renewals: fabric8's elector checks the renew deadline only
 * between its tries, and a try whose answer stalls after its headers (fabric8's JDK client has no
 * timeout after them) never ends; the Lease then expires, another replica leads, and this one would
 * go on publishing beside it. Once its last renewal is older than the renew deadline, it gives the
 * lead up and exits, as client-go's elector does, whose requests end with the deadline.
 */
@Context
public class LeaderElection {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);
  static final String LEASE = "tessera-controller";

  /** How long shutdown hooks may run after the lead is lost before the process halts. */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final ElectionSettings config;
  private final Publishing controller;
  private final Runnable exit;
  private final String identity;
  private final Clock clock;
  private final ElectionLock lock;
  private CompletableFuture<?> election;
  private volatile boolean stopping;
  private volatile boolean leading;

  /** Set once the lead is lost or given up: the controller is stopped and the exit run once. */
  private final AtomicBoolean ended = new AtomicBoolean();

  /** Whether the lead was given up on a renewal that did not end: nothing left to release. */
  private volatile boolean renewalHung;

  private final ScheduledExecutorService renewalWatch =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("lead-renewal-watch").daemon().unstarted(r));

  @Inject
  public LeaderElection(
      KubernetesClient client,
      ElectionSettings config,
      NodePoolController controller,
      Clock clock,
      MeterRegistry metrics) {
    this(client, config, controller, clock, metrics, LeaderElection::exit);
  }

  /** {@code exit} ends the process once the lead is lost (a test's replica records it instead). */
  LeaderElection(
      KubernetesClient client,
      ElectionSettings config,
      Publishing controller,
      Clock clock,
      MeterRegistry metrics,
      Runnable exit) {
    this.client = client;
    this.exit = exit;
    this.clock = clock;
    Gauge.builder("tessera.controller.leader", () -> leading ? 1 : 0)
        .description("1 while this replica leads (publishes slices)")
        .register(metrics);
    this.config = config;
    this.controller = controller;
    this.identity = config.identity();
    this.lock =
        new ElectionLock(new LeaseLock(config.namespace(), LEASE, identity), clock, metrics);
  }

  @PostConstruct
  void start() {
    // The caches fill while this replica waits: it publishes as soon as it leads.
    controller.watch();
    var duration = config.leaseDuration();
    election =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(LEASE)
                    .withLock(lock)
                    .withLeaseDuration(duration)
                    .withRenewDeadline(renewDeadline(duration))
                    .withRetryPeriod(retryPeriod(duration))
                    .withReleaseOnCancel()
                    .withLeaderCallbacks(
                        new LeaderCallbacks(this::lead, this::lostLead, this::newLeader))
                    .build())
            .build()
            .start();
    LOG.atInfo().addKeyValue("identity", identity).log("waiting to lead");
  }

  /**
   * How long a leader tries to renew before it gives the lead up: client-go's ratio (10 s of 15).
   */
  static Duration renewDeadline(Duration leaseDuration) {
    return leaseDuration.multipliedBy(2).dividedBy(3);
  }

  /**
   * How often a follower asks for the Lease, and the leader renews it: client-go's ratio (2 s of a
   * 15 s Lease, a 10 s renew deadline). A released lead waits for a follower's next ask, which
   * fabric8 makes 1 to 2.2 retry periods after its last: over 29 handovers as a rolling upgrade
   * makes them, 2.33 s on average from the leader's SIGTERM, against 4.00 s at a fifth of the Lease
   * (decision 61).
   */
  static Duration retryPeriod(Duration leaseDuration) {
    return leaseDuration.multipliedBy(2).dividedBy(15);
  }

  private void lead() {
    LOG.atInfo().addKeyValue("identity", identity).log("leading");
    leading = true;
    // Twice a retry period: given up at most half a retry period after the renew deadline, well
    // within the Lease (10.2 s of 15 by default).
    long watch = retryPeriod(config.leaseDuration()).toMillis() / 2;
    renewalWatch.scheduleWithFixedDelay(this::watchRenewals, watch, watch, TimeUnit.MILLISECONDS);
    // fabric8 calls this on the elector's thread, inside the try that took the Lease, and renews
    // only once it returns; publishing waits for the caches' first lists. Lists longer than the
    // Lease (a loaded node, a large fleet, both replicas started at once) would let the other
    // replica take the lead meanwhile, and this one, renewing at last, find it gone and exit
    // (LeaderElectionIT). client-go runs OnStartedLeading on a goroutine of its own.
    Thread.ofPlatform().daemon().name("lead").start(this::publish);
  }

  private void publish() {
    try {
      controller.start();
    } catch (RuntimeException e) {
      if (stopping || !leading) {
        // Shut down, or the lead was lost (which stopped the controller): told where it happened.
        return;
      }
      // Holding the lead without publishing would leave every node's slices as they are until
      // this replica is restarted by hand: exit instead, releasing the lead to another replica.
      LOG.atError()
          .setCause(e)
          .addKeyValue("identity", identity)
          .log("cannot publish while leading; exiting");
      controller.stop();
      exit.run();
    }
  }

  /**
   * Gives the lead up once its last renewal is older than the renew deadline, which fabric8's
   * elector would have seen by now unless its try is still under way.
   */
  private void watchRenewals() {
    if (!leading || stopping || ended.get()) {
      return;
    }
    var renewals = lock.renewals();
    Duration deadline = renewDeadline(config.leaseDuration());
    if (!renewals.overdue(clock.instant(), deadline)) {
      return;
    }
    renewalHung = true;
    leading = false;
    Duration since = renewals.since(clock.instant());
    LOG.atError()
        .addKeyValue("identity", identity)
        .addKeyValue("renewDeadlineMs", deadline.toMillis())
        .addKeyValue("sinceRenewedMs", since.toMillis())
        .addKeyValue("failedSinceRenewed", renewals.failedSince())
        .addKeyValue("lastFailure", renewals.lastFailure())
        .log(
            "the lead's renewal has not ended within its renew deadline (a Lease request whose"
                + " answer never comes); giving the lead up before the Lease expires and exiting");
    endLead();
  }

  private void lostLead() {
    leading = false;
    if (stopping) {
      LOG.atInfo().addKeyValue("identity", identity).log("released the lead");
      return;
    }
    if (ended.get()) {
      return; // given up already (watchRenewals), and told then
    }
    var renewals = lock.renewals();
    Duration since = renewals.since(clock.instant());
    LOG.atWarn()
        .addKeyValue("identity", identity)
        .addKeyValue("renewDeadlineMs", renewDeadline(config.leaseDuration()).toMillis())
        .addKeyValue("sinceRenewedMs", since == null ? -1 : since.toMillis())
        .addKeyValue("lastRenewalTookMs", renewals.writeTookMs())
        .addKeyValue("failedSinceRenewed", renewals.failedSince())
        .addKeyValue("lastFailure", renewals.lastFailure())
        .log("lost the lead; exiting");
    // Stop writing first: the exit runs shutdown hooks that can take long while the API server is
    // away (an outage is a common reason to lose the lead), and an ex-leader that still reconciles
    // from its stale caches once the API server is back races the new leader (it was seen
    // withdrawing a live node's slices 48 s after losing the lead).
    endLead();
  }

  private void endLead() {
    if (ended.compareAndSet(false, true)) {
      renewalWatch.shutdownNow();
      controller.stop();
      exit.run();
    }
  }

  /**
   * Exits with status 1 on a thread of its own (the elector's must not wait for shutdown hooks),
   * and halts if the hooks take longer than {@link #EXIT_GRACE}.
   */
  private static void exit() {
    Thread.ofPlatform().name("lost-lead-exit").start(() -> System.exit(1));
    Thread.ofPlatform()
        .daemon()
        .name("lost-lead-halt")
        .start(
            () -> {
              try {
                Thread.sleep(EXIT_GRACE);
              } catch (InterruptedException e) {
                return;
              }
              Runtime.getRuntime().halt(1);
            });
  }

  private void newLeader(String leader) {
    if (leader == null) {
      // A leader that stops releases the Lease with no holder; the next to ask takes it.
      LOG.atInfo().log("the controller's lead was released");
      return;
    }
    LOG.atInfo().addKeyValue("leader", leader).log("the controller's leader");
  }

  @PreDestroy
  void stop() {
    stopping = true;
    renewalWatch.shutdownNow();
    lock.releasing();
    // A lead given up on a hung renewal has nothing to release, and the release would wait for that
    // renewal (fabric8 holds its elector's lock through a try).
    if (election != null && !renewalHung) {
      election.cancel(true);
    }
  }
}
