package dev.tessera.plugin.k8s;

import dev.tessera.api.NodeLeaseNames;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the plugin's Lease ({@code tessera-<node>}) while the plugin is registered with the
 * kubelet, so the controller can tell a live node plugin from a gone one and withdraw the node's
 * slices when the Lease expires.
 */
public final class LeaseRenewer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRenewer.class);

  private final Supplier<KubernetesClient> client;
  private final String namespace;
  private final String name;
  private final String holder;
  private final Duration duration;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("lease-renewer").unstarted(r));

  public LeaseRenewer(
      Supplier<KubernetesClient> client,
      String namespace,
      String nodeName,
      String holder,
      Duration duration,
      Clock clock) {
    this.client = client;
    this.namespace = namespace;
    this.name = NodeLeaseNames.forNode(nodeName);
    this.holder = holder;
    this.duration = duration;
    this.clock = clock;
  }

  /** Renews now and then every quarter of the lease's duration. */
  public void start() {
    long period = Math.max(1, duration.toMillis() / 4);
    timer.scheduleAtFixedRate(this::renew, 0, period, TimeUnit.MILLISECONDS);
  }

  /** Failed renewals since the last success; only the timer's thread touches it. */
  private int failedInARow;

  /**
   * The Lease as the last renewal left it, or null when it must be read first; only the timer's
   * thread touches it. Renewing from it is one request (an update carrying its resourceVersion)
   * where reading first is two: at 5,000 nodes renewing every 10 s, 500 reads a second the API
   * server is spared, as the kubelet spares it for its own node Lease.
   */
  private Lease last;

  void renew() {
    try {
      var leases = client.get().leases().inNamespace(namespace);
      ZonedDateTime now = ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC);
      if (last != null) {
        try {
          last = leases.resource(renewed(last, now)).update();
          recovered();
          return;
        } catch (KubernetesClientException e) {
          last = null;
          // Changed or deleted by someone else since: read it again, now, rather than let the
          // renewal slip a period. Any other failure counts as one.
          if (e.getCode() != HttpURLConnection.HTTP_CONFLICT
              && e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
            throw e;
          }
        }
      }
      Lease lease = leases.withName(name).get();
      if (lease == null) {
        last =
            leases
                .resource(
                    new LeaseBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity(holder)
                        .withLeaseDurationSeconds((int) duration.toSeconds())
                        .withAcquireTime(now)
                        .withRenewTime(now)
                        .endSpec()
                        .build())
                .create();
        LOG.atInfo().addKeyValue("lease", namespace + "/" + name).log("created the plugin's Lease");
        recovered();
        return;
      }
      last = leases.resource(renewed(lease, now)).update();
      recovered();
    } catch (RuntimeException e) {
      last = null;
      failedInARow++;
      // During an API server outage this fails every period: the first failure with its cause,
      // then one line every tenth, not a stack trace a second.
      if (failedInARow == 1 || failedInARow % 10 == 0) {
        LOG.atWarn()
            .addKeyValue("lease", namespace + "/" + name)
            .addKeyValue("failedRenewals", failedInARow)
            .setCause(failedInARow == 1 ? e : null)
            .log("cannot renew the Lease" + (failedInARow == 1 ? "" : ": " + e.getMessage()));
      }
    }
  }

  /** A copy of {@code lease} held by this plugin and renewed at {@code now}. */
  private Lease renewed(Lease lease, ZonedDateTime now) {
    return new LeaseBuilder(lease)
        .editSpec()
        .withHolderIdentity(holder)
        .withLeaseDurationSeconds((int) duration.toSeconds())
        .withRenewTime(now)
        .endSpec()
        .build();
  }

  private void recovered() {
    if (failedInARow > 0) {
      LOG.atInfo()
          .addKeyValue("lease", namespace + "/" + name)
          .addKeyValue("failedRenewals", failedInARow)
          .log("renewed the Lease again");
      failedInARow = 0;
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
