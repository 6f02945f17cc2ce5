package dev.tessera.controller.publish;

import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.controller.calls.CallAnswers;
import dev.tessera.controller.calls.CallDeadlines;
import dev.tessera.controller.events.HealthTransitions;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps every GPU node's pool true, by role: {@link PoolInformers} watch the cluster and name the
 * node each event is about; the {@link NodeQueue} holds each such node once and backs off the ones
 * that fail; a worker reads the node's {@link NodeInputs}, the {@link PoolPlanner} decides the
 * writes (nothing when nothing changed) and the {@link SliceWriter} makes them; the GpuNode's
 * {@code status.offering} is written behind the slices ({@link OfferingStatusWrites}) when it says
 * another offering, and a change of the devices' taints is told as Events on the GpuNode. A node
 * whose inputs are those of its last reconcile, which wrote nothing, is not planned again ({@link
 * SettledPools}). A resync names every node now and then (a Lease's expiry makes no event). Several
 * workers reconcile different nodes at once; the queue never hands one node to two of them, so the
 * writes of one node never race. Every replica watches from its start; only the one that leads
 * reconciles.
 */
@Singleton
public class NodePoolController implements Publishing {
  private static final Logger LOG = LoggerFactory.getLogger(NodePoolController.class);

  private final PublishSettings config;
  private final MetadataClient metadata;
  private final PoolInformers informers;
  private final PoolPlanner planner;
  private final SliceWriter writer;
  private final NodeQueue queue;
  private final MeterRegistry metrics;
  private final ReportedNodes reported;
  private final SettledPools settled = new SettledPools();
  private final WrittenSlices written = new WrittenSlices(WRITES_SEEN_PATIENCE);
  private final Clock clock;
  private final List<Thread> workers;
  private volatile boolean stopped;
  private final AtomicBoolean watching = new AtomicBoolean();
  private final CompletableFuture<Void> synced = new CompletableFuture<>();

  /** Counted down once this replica stops: {@link #start} returns then. */
  private final CountDownLatch halted = new CountDownLatch(1);

  /** Whether this replica leads: until then its informers' events name no node to the queue. */
  private volatile boolean leading;

  private final OfferingStatusWrites offeringWrites;
  private final EventRecorder events;

  /**
   * The workers', the offering writer's and the Events' API calls under way, given up past the call
   * timeout (checked while this replica publishes: only the leader writes).
   */
  private final CallDeadlines deadlines;

  /**
   * The health each node's taints were last published from, by this replica since it leads: the
   * first publish of a node tells nothing (its taints were told by whoever published them), a later
   * change tells what changed. Each node's entry is touched only by the worker that has the node.
   */
  private final Map<String, NodeHealth> publishedHealth = new ConcurrentHashMap<>();

  /** Nodes whose report their offering cannot publish, as of their last plan (logged). */
  private final Set<String> refused = ConcurrentHashMap.newKeySet();

  /** How often the start, and then the publishing, looks whether the caches follow the cluster. */
  private static final Duration SYNC_POLL = Duration.ofSeconds(1);

  /** The longest a node's reconcile waits for its slice cache to show its last writes. */
  private static final Duration WRITES_SEEN_PATIENCE = Duration.ofSeconds(30);

  /**
   * The longest a GpuNode's {@code status.offering} waits behind other nodes' slices: longer than a
   * fleet's first publish takes (41 s of writes for 5,000 nodes), so those writes do not take the
   * API server from the last slices; a person reads the field, the scheduler does not.
   */
  private static final Duration OFFERING_WRITE_PATIENCE = Duration.ofMinutes(2);

  private final ScheduledExecutorService resync =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("node-pools-resync").daemon().unstarted(r));

  public NodePoolController(
      KubernetesClient client,
      PublishSettings config,
      SliceRenderer renderer,
      PoolReconciler reconciler,
      JsonMapper json,
      Clock clock,
      MeterRegistry metrics,
      EventRecorder events,
      CallDeadlines deadlines) {
    this.config = config;
    this.clock = clock;
    this.events = events;
    this.metrics = metrics;
    this.reported = new ReportedNodes(json);
    this.metadata = new MetadataClient(client, new CallAnswers(deadlines));
    this.informers = new PoolInformers(client, config, reported, clock, metrics, metadata);
    this.planner =
        new PoolPlanner(
            renderer,
            reconciler,
            Offering.fromLabel(config.defaultOffering()).orElse(Offering.EXCLUSIVE));
    // Its writes' answers say the slice's metadata only: the writer reads nothing else of them.
    this.writer = new SliceWriter(metadata.client(), metrics);
    this.queue = new NodeQueue(new Backoff(config.retryInitial(), config.retryMax()), clock);
    this.deadlines = deadlines;
    var statusWriter = new GpuNodeStatusWriter(client);
    this.offeringWrites =
        new OfferingStatusWrites(
            (node, offering) -> {
              // Told first: the watch event of this write may come before the write returns.
              reported.offeringWritten(node, offering);
              deadlines.run(
                  "status-offering", node, () -> statusWriter.writeOffering(node, offering));
            },
            queue::depth,
            clock,
            OFFERING_WRITE_PATIENCE);
    this.workers =
        IntStream.range(0, config.workers())
            .mapToObj(i -> Thread.ofPlatform().name("node-pools-" + i).unstarted(this::work))
            .toList();
    Gauge.builder("tessera.controller.reported.nodes", () -> reported.nodes().size())
        .description("Nodes whose plugin reported an inventory in its GpuNode")
        .register(metrics);
    Gauge.builder(
            "tessera.controller.rejected.nodes", () -> reported.rejectedNodes() + refused.size())
        .description("Nodes whose GpuNode status the controller cannot read or publish (logged)")
        .register(metrics);
    Gauge.builder(
            "tessera.controller.unhealthy.devices",
            () -> publishedHealth.values().stream().mapToLong(NodeHealth::unhealthyCount).sum())
        .description("Devices the published slices taint as unhealthy (NoSchedule)")
        .register(metrics);
    Gauge.builder("tessera.controller.queue.depth", queue::depth)
        .description("Nodes waiting for a worker to reconcile their pool")
        .register(metrics);
    Gauge.builder("tessera.controller.offering.writes.pending", offeringWrites::pending)
        .description("GpuNodes whose status.offering waits to be written behind the slices")
        .register(metrics);
    Gauge.builder(
            "tessera.controller.cache.list.seconds",
            () ->
                informers
                    .listing()
                    .map(l -> Duration.between(l.since(), clock.instant()).toMillis() / 1000.0)
                    .orElse(0.0))
        .description(
            "How long the caches' oldest list under way has taken so far, 0 when none: past"
                + " TESSERA_CONTROLLER_LIST_TIMEOUT a leader gives up and exits")
        .register(metrics);
    Gauge.builder("tessera.controller.queue.backoff", queue::backingOff)
        .description("Nodes whose last reconcile failed, waiting out their backoff")
        .register(metrics);
  }

  /**
   * Starts the informers on a thread of their own and returns: every replica fills its caches while
   * it waits to lead, as controller-runtime's do, so the one that comes to lead publishes at once
   * instead of listing the fleet first (a first start overlaps the lists with the election). Until
   * this replica leads, the events name no node to the queue: {@link #start} names them all.
   */
  @Override
  public void watch() {
    if (!watching.compareAndSet(false, true)) {
      return;
    }
    Thread.ofPlatform()
        .name("node-pools-watch")
        .daemon()
        .start(
            () -> {
              try {
                informers.start(this::touched, settled::settledAlive);
                // A broken Lease watch must be noticed even while no event comes, and from the
                // sync on, leading or not: a follower that leads after an API server outage counts
                // its plugins' Lease expiries from the outage's end (LeaseLiveness says why).
                resync.scheduleWithFixedDelay(informers::checkLeaseSight, 1, 1, TimeUnit.SECONDS);
                synced.complete(null);
              } catch (RuntimeException | Error e) {
                // Told now, not only when this replica comes to lead (start() throws it then); an
                // Error too, or the start would wait for a sync that never comes. A stopped
                // replica's informers fail their lists: nothing to tell.
                if (!stopped) {
                  LOG.atError().setCause(e).log("cannot list and watch the GPU nodes");
                }
                synced.completeExceptionally(e);
              }
            });
  }

  /**
   * A node an event is about: reconciled once this replica leads ({@link #start} names the rest).
   */
  private void touched(String node) {
    if (leading) {
      queue.add(node);
    }
  }

  /**
   * Publishes; called once this replica leads, and returns once it stops. Waits until the informers
   * have synced (they started at {@link #watch}, or start now), then names every node they know to
   * the queue. Throws once a cache no longer follows the cluster, before publishing or during: one
   * of the lists failed, or is still under way after {@link PublishSettings#listTimeout} (a first
   * list, or one after a watch ended), or an informer stopped. A leader that waited on such a cache
   * for good would hold the lead and publish nothing, and one that published from it would write
   * what the cluster no longer says.
   */
  @Override
  public void start() {
    watch();
    if (!awaitSynced()) {
      return;
    }
    synchronized (this) {
      if (stopped) {
        // The lead went while the caches filled: an ex-leader writes nothing.
        return;
      }
      // A follower's cache may have stopped following while it waited to lead.
      failIfCachesStuck();
      publish();
    }
    publishUntilStopped();
  }

  /**
   * Waits until the informers have synced; false if this replica stopped meanwhile (its informers
   * closed: their lists fail, or never end), which is no failure to tell.
   */
  private boolean awaitSynced() {
    while (!stopped) {
      try {
        synced.get(SYNC_POLL.toMillis(), TimeUnit.MILLISECONDS);
        return true;
      } catch (TimeoutException e) {
        failIfCachesStuck();
      } catch (ExecutionException e) {
        if (stopped) {
          return false;
        }
        throw e.getCause() instanceof RuntimeException cause
            ? cause
            : new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the caches filled", e);
      }
    }
    return false;
  }

  /** Looks each second, until this replica stops, that its caches still follow the cluster. */
  private void publishUntilStopped() {
    try {
      while (!halted.await(SYNC_POLL.toMillis(), TimeUnit.MILLISECONDS)) {
        failIfCachesStuck();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing", e);
    }
  }

  /**
   * Throws if a cache no longer follows the cluster: a list under way for longer than the list
   * timeout (taken as an answer that will never come, not a slow one), or an informer that fabric8
   * stopped for good.
   */
  private void failIfCachesStuck() {
    if (stopped) {
      return;
    }
    var overdue = informers.listing().filter(l -> l.overdue(clock.instant(), config.listTimeout()));
    if (overdue.isPresent()) {
      throw new IllegalStateException(
          "the %s list asked for at %s has not ended within %s (TESSERA_CONTROLLER_LIST_TIMEOUT):"
                  .formatted(overdue.get().resource(), overdue.get().since(), config.listTimeout())
              + " taken as an answer that will never come");
    }
    var stoppedInformer = informers.stoppedOnItsOwn();
    if (stoppedInformer.isPresent()) {
      throw new IllegalStateException(
          "the %s informer has stopped: its cache no longer follows the cluster"
              .formatted(stoppedInformer.get().resource()),
          stoppedInformer.get().cause());
    }
  }

  private void publish() {
    // Leading first, then every known node: an event the caches take after this names its node
    // itself, and one taken before it is in what knownNodes reads.
    leading = true;
    informers.knownNodes().forEach(queue::add);
    workers.forEach(Thread::start);
    offeringWrites.start();
    resync.scheduleWithFixedDelay(this::interruptOverdueCalls, 1, 1, TimeUnit.SECONDS);
    long period = config.resync().toMillis();
    resync.scheduleWithFixedDelay(
        () -> informers.knownNodes().forEach(queue::add), period, period, TimeUnit.MILLISECONDS);
    LOG.atInfo()
        .addKeyValue("driver", config.driverName())
        .addKeyValue("workers", workers.size())
        .log("publishing the GPU nodes' slices");
  }

  private void interruptOverdueCalls() {
    try {
      deadlines.interruptOverdue();
    } catch (RuntimeException e) {
      // Thrown out of the executor's task, it would end these checks for good without a word.
      LOG.atWarn().setCause(e).log("cannot judge the API calls under way");
    }
  }

  private void work() {
    try {
      // Stopped is told by the flag: calls given up past the call timeout were interrupted too.
      while (!stopped && !Thread.currentThread().isInterrupted()) {
        String node = queue.take();
        boolean succeeded = reconcile(node);
        Duration wait = queue.done(node, succeeded);
        if (!succeeded) {
          metrics.counter("tessera.controller.reconcile.retries").increment();
          LOG.atInfo().addKeyValue("node", node).addKeyValue("retryIn", wait).log("retry planned");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean reconcile(String node) {
    Timer.Sample sample = Timer.start(metrics);
    try {
      // Its slices' reads too: a slice that does not say its generation is read from the API
      // server.
      NodeInputs inputs = deadlines.call("slice-reads", node, () -> informers.inputs(node));
      if (written.awaited(node, inputs.slices(), clock.instant())) {
        sample.stop(reconcileTimer("awaiting-cache"));
        return true; // the events of its last writes, still to come, name the node again
      }
      if (settled.holds(inputs)) {
        sample.stop(reconcileTimer("unchanged"));
        return true;
      }
      PoolPlanner.Plan plan = planner.plan(inputs);
      plan.unknownLabel()
          .ifPresent(
              label ->
                  LOG.atWarn()
                      .addKeyValue("node", node)
                      .addKeyValue("offering", label)
                      .log("unknown offering; using the default"));
      tellRender(node, plan);
      if (stopped) {
        settled.forget(node);
        written.forget(node);
        return true; // the lead is gone: no write from stale caches
      }
      deadlines.run("slice-writes", node, () -> writer.write(node, plan.writes()));
      written.wrote(node, plan.writes(), clock.instant());
      plan.offeringStatus().ifPresent(offering -> offeringWrites.wish(node, offering));
      tellHealthChanges(inputs, plan.render());
      if (plan.writes().isEmpty() && plan.offeringStatus().isEmpty()) {
        settled.settle(inputs);
      } else {
        settled.forget(node);
      }
      if (!plan.writes().isEmpty()) {
        LOG.atInfo()
            .addKeyValue("node", node)
            .addKeyValue("offering", plan.offering().label())
            .addKeyValue("writes", plan.writes().size())
            .addKeyValue("slices", plan.render().slices().size())
            .addKeyValue("pluginAlive", inputs.pluginAlive())
            .log("published the node's slices");
      }
      sample.stop(reconcileTimer("success"));
      return true;
    } catch (RuntimeException e) {
      settled.forget(node);
      written.forget(node);
      sample.stop(reconcileTimer("error"));
      LOG.atWarn().addKeyValue("node", node).setCause(e).log("cannot reconcile the node's slices");
      return false;
    }
  }

  /** Logs a report its offering cannot publish (or publishes without taints), once a plan. */
  private void tellRender(String node, PoolPlanner.Plan plan) {
    switch (plan.render()) {
      case PoolRender.Refused(String reason) -> {
        refused.add(node);
        LOG.atWarn()
            .addKeyValue("node", node)
            .addKeyValue("offering", plan.offering().label())
            .addKeyValue("reason", reason)
            .log("rejecting the GpuNode's status; the node gets no slices");
      }
      case PoolRender.Published p when p.taintsDropped().isPresent() -> {
        refused.remove(node);
        LOG.atWarn()
            .addKeyValue("node", node)
            .addKeyValue("reason", p.taintsDropped().get())
            .log("cannot publish the GpuNode's device health; publishing without taints");
      }
      default -> refused.remove(node);
    }
  }

  /** Events for the taints just published that differ from those published before. */
  private void tellHealthChanges(NodeInputs inputs, PoolRender render) {
    if (!(render instanceof PoolRender.Published published)) {
      publishedHealth.remove(inputs.node());
      return;
    }
    var report = inputs.report().orElseThrow();
    NodeHealth before = publishedHealth.put(inputs.node(), published.health());
    if (before != null && !before.equals(published.health())) {
      HealthTransitions.between(inputs.node(), report.uid(), before, published.health())
          .forEach(events::record);
    }
  }

  private Timer reconcileTimer(String outcome) {
    return Timer.builder("tessera.controller.reconcile")
        .description(
            "Reconciling one node's pool: render, diff and the API writes (outcome unchanged: its"
                + " inputs were those of its last reconcile, which wrote nothing; awaiting-cache: its"
                + " slice cache does not yet show its last writes; nothing rendered in either)")
        .tag("outcome", outcome)
        .register(metrics);
  }

  @Override
  @PreDestroy
  public synchronized void stop() {
    stopped = true;
    halted.countDown();
    try {
      workers.forEach(Thread::interrupt);
      offeringWrites.close();
      resync.shutdownNow();
      informers.close();
    } finally {
      metadata.close();
    }
  }
}
