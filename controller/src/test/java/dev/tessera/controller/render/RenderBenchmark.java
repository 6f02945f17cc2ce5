package dev.tessera.controller.render;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.publish.PoolReconciler;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.publish.SliceWrite;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Measures what the controller does per node on every resync: render the pool of a node of 8 H100s
 * (one in MIG mode) in the {@code mig-dynamic} offering and diff it against the slices already
 * published (steady state: the diff must find nothing to write). Each of {@code nodes} nodes has
 * its own GPU UUIDs, as a real fleet would. Prints a Markdown table of time and allocated bytes per
 * node. Run it with {@code hack/bench-controller}.
 *
 * <p>Arguments: {@code [nodes] [rounds]} (defaults 1000 and 5; the first round is warm-up).
 */
public final class RenderBenchmark {
  private RenderBenchmark() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    NodeInventory template = SimulatedInventories.node("H100-SXM5-80GB", 8);
    var renderer = new SliceRenderer();
    var reconciler = new PoolReconciler(new PoolSlices("gpu.tessera.dev"));
    List<NodeInventory> fleet = new ArrayList<>();
    List<List<ResourceSlice>> published = new ArrayList<>();
    long heapBefore = usedHeapAfterGc();
    for (int n = 0; n < nodes; n++) {
      NodeInventory node = Fleets.withOwnUuids(template, n);
      fleet.add(node);
      List<SliceWrite> writes =
          reconciler.reconcile(
              "node-" + n, "uid-" + n, renderer.render(node, Offering.MIG_DYNAMIC), List.of());
      published.add(
          writes.stream()
              .map(w -> w instanceof SliceWrite.Create c ? c.slice() : null)
              .filter(s -> s != null)
              .toList());
    }
    double retainedPerPool = (double) (usedHeapAfterGc() - heapBefore) / nodes;
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().threadId();
    double[] nanosPerNode = new double[rounds - 1];
    double[] renderNanosPerNode = new double[rounds - 1];
    double[] bytesPerNode = new double[rounds - 1];
    int devices = 0;
    int slices = 0;
    for (int round = 0; round < rounds; round++) {
      long writes = 0;
      long renderNanos = 0;
      long bytes0 = threads.getThreadAllocatedBytes(tid);
      long t0 = System.nanoTime();
      for (int n = 0; n < nodes; n++) {
        long r0 = System.nanoTime();
        List<DesiredSlice> desired = renderer.render(fleet.get(n), Offering.MIG_DYNAMIC);
        renderNanos += System.nanoTime() - r0;
        writes += reconciler.reconcile("node-" + n, "uid-" + n, desired, published.get(n)).size();
        if (n == 0 && round == 0) {
          slices = desired.size();
          devices =
              desired.stream()
                  .mapToInt(s -> s instanceof DesiredSlice.Devices d ? d.devices().size() : 0)
                  .sum();
        }
      }
      long elapsed = System.nanoTime() - t0;
      long allocated = threads.getThreadAllocatedBytes(tid) - bytes0;
      if (writes != 0) {
        throw new AssertionError("steady state wrote " + writes + " slices");
      }
      if (round > 0) {
        nanosPerNode[round - 1] = (double) elapsed / nodes;
        renderNanosPerNode[round - 1] = (double) renderNanos / nodes;
        bytesPerNode[round - 1] = (double) allocated / nodes;
      }
    }
    Arrays.sort(nanosPerNode);
    Arrays.sort(renderNanosPerNode);
    Arrays.sort(bytesPerNode);
    System.out.printf(
        Locale.ROOT,
        "| figure | value |%n|---|---|%n"
            + "| nodes x rounds | %d x %d (+1 warm-up) |%n"
            + "| pool per node | %d slices, %d devices |%n"
            + "| render + diff per node, median round | %.3f ms |%n"
            + "| render + diff per node, best round | %.3f ms |%n"
            + "| of which render, median round | %.3f ms |%n"
            + "| allocated per node, median round | %.1f KiB |%n"
            + "| heap held per published pool (fabric8 objects) | %.1f KiB |%n"
            + "| writes at steady state | 0 |%n",
        nodes,
        rounds - 1,
        slices,
        devices,
        nanosPerNode[nanosPerNode.length / 2] / 1e6,
        nanosPerNode[0] / 1e6,
        renderNanosPerNode[renderNanosPerNode.length / 2] / 1e6,
        bytesPerNode[bytesPerNode.length / 2] / 1024,
        retainedPerPool / 1024);
  }

  private static long usedHeapAfterGc() {
    var runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
