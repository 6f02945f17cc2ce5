package dev.tessera.controller.publish;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes whose last reconcile found nothing to write, with the inputs it found that in: while a
 * node's inputs are those again, planning would find nothing again, so it is skipped. Rendering and
 * digesting a node's pool is most of a reconcile's CPU (a mig-dynamic pool is 9 slices of ~90 KiB
 * of JSON), and most reconciles change nothing: every resync names every node, and every renewal of
 * a plugin's Lease names its node.
 *
 * <p>What the plan reads, and so what must be the same: the report (its inventory and health
 * records, kept by {@link ReportedNodes} while they are unchanged, so compared by identity; its UID
 * and offering), the node's offering label, UID and existence, the plugin's liveness, and the
 * cached slices' names and content digests (a digest covers the slice's spec, its pool generation
 * included).
 */
final class SettledPools {

  private record Settled(
      ReportedNodes.Reported report,
      String offeringLabel,
      boolean nodeExists,
      String nodeUid,
      boolean pluginAlive,
      Map<String, String> digests) {}

  private final Map<String, Settled> byNode = new ConcurrentHashMap<>();

  /** Whether the node's last reconcile found nothing to write, in inputs equal to these. */
  boolean holds(NodeInputs inputs) {
    Settled settled = byNode.get(inputs.node());
    return settled != null
        && sameReport(settled.report(), inputs.report().orElse(null))
        && Objects.equals(settled.offeringLabel(), inputs.offeringLabel())
        && settled.nodeExists() == inputs.nodeExists()
        && Objects.equals(settled.nodeUid(), inputs.nodeUid())
        && settled.pluginAlive() == inputs.pluginAlive()
        && settled.digests().equals(SliceContentHash.byName(inputs.slices()));
  }

  /**
   * The node's reconcile in these inputs found nothing to write. A node with nothing left of it (no
   * Node, no report, no slices) is not kept: nothing names it again.
   */
  void settle(NodeInputs inputs) {
    if (!inputs.nodeExists() && inputs.report().isEmpty() && inputs.slices().isEmpty()) {
      forget(inputs.node());
      return;
    }
    byNode.put(
        inputs.node(),
        new Settled(
            inputs.report().orElse(null),
            inputs.offeringLabel(),
            inputs.nodeExists(),
            inputs.nodeUid(),
            inputs.pluginAlive(),
            SliceContentHash.byName(inputs.slices())));
  }

  /**
   * Whether the node's last reconcile found nothing to write and saw its plugin alive: a renewal of
   * the plugin's Lease that keeps it alive then changes nothing a plan reads.
   */
  boolean settledAlive(String node) {
    Settled s = byNode.get(node);
    return s != null && s.pluginAlive();
  }

  /** Nodes kept (for a test). */
  int size() {
    return byNode.size();
  }

  /** The node's reconcile wrote something or failed: the next one plans. */
  void forget(String node) {
    byNode.remove(node);
  }

  private static boolean sameReport(ReportedNodes.Reported a, ReportedNodes.Reported b) {
    if (a == null || b == null) {
      return a == b;
    }
    return a.sameRecords(b) && Objects.equals(a.offering(), b.offering());
  }
}
