package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fleet plugins' Lease renewals played against the API server, as the node plugin renews its own
 * ({@code LeaseRenewer}: one update from the Lease its last renewal returned): every Lease once a
 * {@code period}, spread evenly over it, for a {@code window}. What a controller at steady state
 * meets on a real fleet: each renewal is a watch event that names the node. At most {@code
 * inFlight} renewals run at once; where the box cannot carry the rate, fewer are done than asked,
 * and the figures say so.
 */
final class LeaseRenewals {

  /**
   * What a window of renewals did; {@code renewedAtHalf}: how many were done when the window's
   * second half began (what a steady-state figure counts from, once the renewal path is compiled).
   */
  record Done(long asked, long renewed, long failed, double seconds, long renewedAtHalf) {
    double perSecond() {
      return renewed / seconds;
    }
  }

  private final KubernetesClient client;
  private final ExecutorService pool;
  private final String namespace;
  private final int inFlight;

  LeaseRenewals(KubernetesClient client, ExecutorService pool, String namespace, int inFlight) {
    this.client = client;
    this.pool = pool;
    this.namespace = namespace;
    this.inFlight = inFlight;
  }

  /**
   * Renews the Leases named {@code names}, each once a {@code period}, for {@code window}; runs
   * {@code atHalf} once when the window's second half begins.
   */
  Done run(List<String> names, Duration period, Duration window, Runnable atHalf) throws Exception {
    var leases = client.leases().inNamespace(namespace);
    var last = new Lease[names.size()];
    for (int i = 0; i < names.size(); i++) {
      last[i] = leases.withName(names.get(i)).get();
    }
    var renewed = new AtomicLong();
    var failed = new AtomicLong();
    // No Lease renewed twice at once (its second update would meet the first's conflict).
    var slots = new Semaphore(Math.min(inFlight, names.size()));
    var started = new ArrayList<Future<?>>();
    long asked = 0;
    long start = System.nanoTime();
    long end = start + window.toNanos();
    long half = start + window.toNanos() / 2;
    long renewedAtHalf = -1;
    double gap = (double) period.toNanos() / names.size();
    for (long k = 0; ; k++) {
      long due = start + (long) (k * gap);
      if (due >= end) {
        break;
      }
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      if (renewedAtHalf < 0 && System.nanoTime() >= half) {
        renewedAtHalf = renewed.get();
        atHalf.run();
      }
      slots.acquire();
      if (System.nanoTime() >= end) {
        slots.release();
        break; // behind the asked rate: the window is over all the same
      }
      asked++;
      int i = (int) (k % names.size());
      started.add(
          pool.submit(
              () -> {
                try {
                  last[i] = renew(leases, last[i]);
                  renewed.incrementAndGet();
                } catch (RuntimeException e) {
                  failed.incrementAndGet();
                } finally {
                  slots.release();
                }
              }));
    }
    for (Future<?> f : started) {
      f.get();
    }
    return new Done(
        asked,
        renewed.get(),
        failed.get(),
        (System.nanoTime() - start) / 1e9,
        Math.max(renewedAtHalf, 0));
  }

  private static Lease renew(
      NonNamespaceOperation<Lease, LeaseList, Resource<Lease>> leases, Lease lease) {
    return leases
        .resource(
            new LeaseBuilder(lease)
                .editSpec()
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
                .endSpec()
                .build())
        .update();
  }
}
