package dev.tessera.controller.publish;

import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Fleets;
import dev.tessera.controller.render.SimulatedInventories;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures what the controller does with each GpuNode its informer lists at its start: read the
 * plugin's report into records ({@link ReportedNodes#update}), for a fleet of nodes of 8 H100s with
 * UUIDs of their own, in both forms a plugin writes (each MIG profile table once, as the plugin
 * does since decision 56, and a table per GPU, as older plugins did). The GpuNodes are parsed from
 * their JSON into maps beforehand, as fabric8 hands them over. Each round reads the whole fleet
 * into a new {@link ReportedNodes}, as a controller's start does; the first round is warm-up.
 * Prints a Markdown table of the reading thread's CPU and allocation per node. Run it with {@code
 * hack/bench-controller}, which gives it the controller's JVM flags.
 *
 * <p>Arguments: {@code [nodes] [rounds]} (defaults 5000 and 5).
 */
public final class ReportReadBenchmark {
  private ReportReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    var json = JsonMapper.builder().build();
    NodeInventory template = SimulatedInventories.node("H100-SXM5-80GB", 8);
    var table =
        new StringBuilder(
            "| form | GpuNode status | CPU per node, median round | best round | allocated per node | read |%n|---|---|---|---|---|---|%n"
                .formatted());
    for (boolean once : new boolean[] {true, false}) {
      List<GenericKubernetesResource> fleet = new ArrayList<>(nodes);
      int bytes = 0;
      for (int n = 0; n < nodes; n++) {
        NodeInventory inventory = Fleets.withOwnUuids(template, n);
        @SuppressWarnings("unchecked")
        Map<String, Object> maps = json.convertValue(inventory, Map.class);
        String text =
            json.writeValueAsString(
                Map.of("inventory", once ? InventoryStatus.compact(maps) : maps));
        bytes = text.length();
        fleet.add(
            ReportedNodesTest.gpuNode("node-" + n, "uid-" + n, json.readValue(text, Map.class)));
      }
      var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long tid = Thread.currentThread().threadId();
      double[] cpuPerNode = new double[rounds - 1];
      double[] bytesPerNode = new double[rounds - 1];
      int read = 0;
      for (int round = 0; round < rounds; round++) {
        var reported = new ReportedNodes(json);
        long bytes0 = threads.getThreadAllocatedBytes(tid);
        long cpu0 = threads.getCurrentThreadCpuTime();
        for (var gpuNode : fleet) {
          reported.update(gpuNode);
        }
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        long allocated = threads.getThreadAllocatedBytes(tid) - bytes0;
        read = reported.nodes().size();
        if (read != nodes || reported.rejectedNodes() != 0) {
          throw new AssertionError(
              "read "
                  + read
                  + " of "
                  + nodes
                  + " reports, "
                  + reported.rejectedNodes()
                  + " rejected");
        }
        if (!reported
            .of("node-0")
            .orElseThrow()
            .inventory()
            .equals(Fleets.withOwnUuids(template, 0))) {
          throw new AssertionError("node-0's report does not read as the inventory it was made of");
        }
        if (round > 0) {
          cpuPerNode[round - 1] = (double) cpu / nodes;
          bytesPerNode[round - 1] = (double) allocated / nodes;
        }
      }
      Arrays.sort(cpuPerNode);
      Arrays.sort(bytesPerNode);
      table.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f KB | %.1f µs | %.1f µs | %.1f KiB | %d of %d nodes x %d rounds (+1 warm-up) |%n",
              once ? "each table once" : "a table per GPU",
              bytes / 1000.0,
              cpuPerNode[cpuPerNode.length / 2] / 1e3,
              cpuPerNode[0] / 1e3,
              bytesPerNode[bytesPerNode.length / 2] / 1024,
              read,
              nodes,
              rounds - 1));
    }
    System.out.print(table);
  }
}
