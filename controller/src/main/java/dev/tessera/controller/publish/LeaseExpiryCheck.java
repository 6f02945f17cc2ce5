package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.micrometer.core.instrument.Counter;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms with the API server a plugin's Lease expiry that the Leases' cache shows, before its
 * node's slices are withdrawn on it. The cache is only as fresh as its watch, and a watch can go
 * silent without ending (the API server's watch cache stalled, or a proxy or load balancer between
 * that stopped passing it): its informer still says it watches, no renewal comes, and after one
 * Lease period every node's plugin would look dead at once and every node's slices would be
 * withdrawn. A Lease the API server has renewed keeps its node's slices, and the Leases are listed
 * again. A plugin that did die is confirmed by one read.
 */
final class LeaseExpiryCheck {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseExpiryCheck.class);

  private final Function<String, Lease> read;
  private final BooleanSupplier relist;
  private final Counter contradicted;

  /**
   * @param read reads a node's plugin Lease from the API server (null when there is none)
   * @param relist lists the Leases again (the cache is behind); says whether it began a list (none
   *     while one is under way)
   * @param contradicted counts the expiries the API server's Lease contradicted
   */
  LeaseExpiryCheck(Function<String, Lease> read, BooleanSupplier relist, Counter contradicted) {
    this.read = read;
    this.relist = relist;
    this.contradicted = contradicted;
  }

  /**
   * Whether {@code node}'s plugin, whose {@code cached} Lease {@code alive} takes for expired, is
   * alive after all by its Lease as the API server has it now.
   */
  boolean aliveAfterAll(String node, Lease cached, Predicate<Lease> alive) {
    Lease now = read.apply(node);
    if (!alive.test(now)) {
      return false;
    }
    contradicted.increment();
    // A silent watch contradicts a fleet's expiries at once: warned once for each relist.
    boolean relisting = relist.getAsBoolean();
    (relisting ? LOG.atWarn() : LOG.atDebug())
        .addKeyValue("node", node)
        .addKeyValue("cachedRenewTime", renewTime(cached))
        .addKeyValue("renewTime", renewTime(now))
        .log(
            "the plugin's Lease is renewed at the API server but expired in the controller's cache"
                + " (the Leases' watch is behind or silent); keeping the node's slices"
                + (relisting ? " and listing the Leases again" : ""));
    return true;
  }

  private static Object renewTime(Lease lease) {
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getRenewTime();
  }
}
