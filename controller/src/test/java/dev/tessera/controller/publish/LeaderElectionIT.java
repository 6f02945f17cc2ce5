package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas' elections against fabric8's CRUD mock API server: a leader whose publishing waits
 * long for its caches keeps renewing its lead meanwhile, one that cannot publish exits, and one
 * whose renewal hangs (through a proxy that stalls its answers) stops and exits before the other
 * can take the expired Lease.
 */
class LeaderElectionIT {
  private static final String NAMESPACE = "tessera";
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration HUNG_LEASE = Duration.ofSeconds(6);

  private final MockApiServer api = new MockApiServer();
  private final List<LeaderElection> elections = new ArrayList<>();

  /** What the replicas' publishing did, in the order it happened: "name starts", "name stops". */
  private final List<String> timeline = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    try {
      elections.forEach(LeaderElection::stop);
    } finally {
      api.close();
    }
  }

  @Test
  void aLeaderWhoseCachesFillSlowlyKeepsRenewingItsLead() throws Exception {
    var slow = new Replica("slow");
    slow.filled = new CountDownLatch(1);
    slow.elect();
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.starts.get() == 1);
    assertThat(holder()).isEqualTo("slow");

    var follower = new Replica("follower");
    follower.elect();
    try {
      // The caches fill for over two Leases: the lead stays where it is, renewed all along.
      await()
          .during(LEASE.multipliedBy(2).plusSeconds(1))
          .atMost(LEASE.multipliedBy(3))
          .until(() -> "slow".equals(holder()));
    } finally {
      slow.filled.countDown();
    }

    assertThat(follower.starts).as("the follower's publishing started").hasValue(0);
    assertThat(slow.exits).as("the leader exited").hasValue(0);
    assertThat(follower.exits).as("the follower exited").hasValue(0);
  }

  @Test
  void aLeaderThatCannotPublishStopsAndExits() {
    var broken = new Replica("broken");
    broken.failure = new IllegalStateException("cannot list the GPU nodes");
    broken.elect();

    await().atMost(Duration.ofSeconds(10)).until(() -> broken.exits.get() == 1);
    assertThat(broken.stops).hasValue(1);
  }

  @Test
  void aLeaderWhoseRenewalHangsGivesUpItsLeadBeforeAnotherCanTakeIt() throws Exception {
    var proxy = StallingProxy.before(api.client().getConfiguration().getMasterUrl());
    var client = proxy.client(api.client().getConfiguration());
    try {
      // A Lease of 6 s: the hung leader stops 4.8 to 5.2 s after its last renew time, the Lease
      // expires for the follower at 6 s.
      var hung = new Replica("hung", client, HUNG_LEASE);
      hung.elect();
      await().atMost(Duration.ofSeconds(10)).until(() -> hung.starts.get() == 1);

      // Its renewals' answers now stop after their headers, as over a connection gone half-open:
      // fabric8's elector checks its renew deadline only between tries, and this try never ends.
      proxy.stall(line -> line.contains("/leases/" + LeaderElection.LEASE));
      var follower = new Replica("follower", api.client(), HUNG_LEASE);
      follower.elect();
      await().atMost(HUNG_LEASE.multipliedBy(4)).until(() -> follower.starts.get() == 1);

      assertThat(proxy.stalled()).as("the hung leader's Lease requests").isNotEmpty();
      assertThat(timeline)
          .as("the hung leader stopped publishing before the follower took the lead")
          .containsSubsequence("hung starts", "hung stops", "follower starts");
      assertThat(hung.exits).as("the hung leader exited").hasValue(1);
      assertThat(follower.exits).as("the follower exited").hasValue(0);
    } finally {
      // The proxy first: its stalled answers end, and with them the elector's try, which holds the
      // elector's lock that stopping it takes.
      proxy.close();
      client.close();
    }
  }

  private String holder() {
    Lease lease = api.client().leases().inNamespace(NAMESPACE).withName(LeaderElection.LEASE).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  /** One replica: its publishing recorded, waiting for {@link #filled} or failing as told. */
  private final class Replica implements Publishing {
    final String name;
    final KubernetesClient client;
    final Duration lease;
    final AtomicInteger starts = new AtomicInteger();
    final AtomicInteger stops = new AtomicInteger();
    final AtomicInteger exits = new AtomicInteger();
    volatile CountDownLatch filled = new CountDownLatch(0);
    volatile RuntimeException failure;

    Replica(String name) {
      this(name, api.client(), LEASE);
    }

    /** A replica whose election talks to the API server through {@code client}. */
    Replica(String name, KubernetesClient client, Duration lease) {
      this.name = name;
      this.client = client;
      this.lease = lease;
    }

    void elect() {
      var election =
          new LeaderElection(
              client,
              new ElectionSettings(NAMESPACE, lease, name),
              this,
              Clock.systemUTC(),
              new SimpleMeterRegistry(),
              exits::incrementAndGet);
      elections.add(election);
      election.start();
    }

    @Override
    public void watch() {}

    @Override
    public void start() {
      timeline.add(name + " starts");
      starts.incrementAndGet();
      if (failure != null) {
        throw failure;
      }
      try {
        filled.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void stop() {
      timeline.add(name + " stops");
      stops.incrementAndGet();
    }
  }
}
