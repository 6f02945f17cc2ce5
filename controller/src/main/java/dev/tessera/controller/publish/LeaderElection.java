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
 * go on publishing beside it. Once a try is under way past client-go's bound ({@link #hungAfter}),
 * it takes the lead as lost and exits, as client-go's elector does, whose requests end with that
 * bound (decision 69). A try that fails in time is left to fabric8, which then gives the lead up
 * itself.
 */
@Context
public class LeaderElection {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);
  static final String LEASE = "tessera-controller";

  /** How long shutdown hooks may run after the lead is lost before the process halts. */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(5);

  /** The longest a stop waits for the lead's release (a release waits on a try under way). */
  private static final Duration RELEASE_WAIT = Duration.ofSeconds(5);

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

  /** Set once the lead is lost, or publishing failed: told, stopped and exited once. */
  private final AtomicBoolean ended = new AtomicBoolean();

  /** Whether the lead was lost: nothing of this replica's is left to release at its stop. */
  private volatile boolean lost;

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

  /**
   * How long after the renew time it last wrote a leader whose try is still under way takes its
   * lead as lost: client-go's bound, whose renewing round starts a retry period after the last
   * renewal and ends its requests at the renew deadline (12 s of a 15 s Lease; judged within half a
   * retry period after, still before the Lease expires for the others). A slow try that ends within
   * it is a renewal, as it is to fabric8.
   */
  static Duration hungAfter(Duration leaseDuration) {
    return renewDeadline(leaseDuration).plus(retryPeriod(leaseDuration));
  }

  private void lead() {
    LOG.atInfo().addKeyValue("identity", identity).log("leading");
    leading = true;
    // Twice a retry period: a hung try is judged at most half a retry period past hungAfter, within
    // the Lease (12 to 13 s after the last renew time, of 15 by default).
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
      if (!ended.compareAndSet(false, true)) {
        return; // the lead was lost meanwhile, and told
      }
      leading = false;
      // Holding the lead without publishing would leave every node's slices as they are until
      // this replica is restarted by hand: exit instead, releasing the lead to another replica.
      LOG.atError()
          .setCause(e)
          .addKeyValue("identity", identity)
          .log("cannot publish while leading; exiting");
      stopAndExit();
    }
  }

  /**
   * Takes the lead as lost once a try of the elector's is under way past {@link #hungAfter}: one
   * that fails is judged by fabric8 between its tries, one that never ends is never judged.
   */
  private void watchRenewals() {
    try {
      if (leading
          && !stopping
          && lock.renewals().hung(clock.instant(), hungAfter(config.leaseDuration()))) {
        lostLead("a request for the Lease still under way past the renew deadline, no answer yet");
      }
    } catch (RuntimeException e) {
      // Thrown out of the executor's task, it would end the watch for good without a word.
      LOG.atWarn().setCause(e).log("cannot judge the lead's renewals");
    }
  }

  /** fabric8's elector gave the lead up, or it was released at shutdown. */
  private void lostLead() {
    if (stopping) {
      leading = false;
      LOG.atInfo().addKeyValue("identity", identity).log("released the lead");
      return;
    }
    lostLead("not renewed within the renew deadline");
  }

  private void lostLead(String reason) {
    if (!ended.compareAndSet(false, true)) {
      return; // told already
    }
    lost = true;
    leading = false;
    if (stopping) {
      // Judged while shutting down: publishing stops there, and an exit now would halt the hooks.
      return;
    }
    var renewals = lock.renewals();
    Duration since = renewals.since(clock.instant());
    LOG.atWarn()
        .addKeyValue("identity", identity)
        .addKeyValue("reason", reason)
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
    stopAndExit();
  }

  /** Stops publishing, then exits, whatever the stop throws. */
  private void stopAndExit() {
    renewalWatch.shutdown();
    try {
      controller.stop();
    } finally {
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

  /**
   * Releases the lead, if held, so that another replica takes it at once. The workers are stopped
   * first (a write already under way may still land). The release waits for a try of the elector's
   * under way (fabric8 holds its lock through one), which may never end: it is waited for at most
   * {@link #RELEASE_WAIT}, and the Lease then expires on its own. A lead already lost has nothing
   * to release.
   */
  @PreDestroy
  void stop() {
    stopping = true;
    renewalWatch.shutdownNow();
    lock.releasing();
    if (election == null) {
      return;
    }
    try {
      controller.stop();
    } catch (RuntimeException e) {
      LOG.atWarn().setCause(e).log("cannot stop publishing; releasing the lead anyway");
    }
    if (lost) {
      return;
    }
    Thread release =
        Thread.ofPlatform().daemon().name("lead-release").start(() -> election.cancel(true));
    try {
      if (!release.join(RELEASE_WAIT)) {
        LOG.atWarn()
            .addKeyValue("identity", identity)
            .addKeyValue("waitedMs", RELEASE_WAIT.toMillis())
            .log("the lead's release has not ended; leaving the Lease to expire");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
