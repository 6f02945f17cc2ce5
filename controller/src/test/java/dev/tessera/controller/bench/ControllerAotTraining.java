package dev.tessera.controller.bench;

import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Fleets;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.plugin.it.MockApiServer;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;

/**
 * The training run of the controller image's AOT cache, for {@code hack/images}: the image's own
 * jlink'ed {@code java}, jar and {@code jvm.options} from its root filesystem, plus {@code
 * -XX:AOTCacheOutput}, run as the controller against fabric8's CRUD mock API server over HTTPS. The
 * mock holds a small fleet in every offering (Nodes labelled with it, GpuNodes of 8 simulated H100s
 * in the form the plugin writes, live plugin Leases); the controller leads, lists and watches them,
 * publishes every pool and writes every GpuNode's {@code status.offering}, then gets SIGTERM and
 * writes the cache as its JVM exits. So the cache holds the classes of the controller's start and
 * of a fleet's first publish, its TLS included. The controller finds the cache's class path at the
 * image's {@code /opt/tessera} later because the relative layout is the same (see {@code
 * ImageAotTraining}, the plugin's).
 *
 * <p>Arguments: {@code <rootfs> <cache> [nodes per offering]}. The controller's log goes to stderr
 * when the run fails.
 */
public final class ControllerAotTraining {
  private static final Duration PUBLISH_WITHIN = Duration.ofMinutes(3);

  private ControllerAotTraining() {}

  public static void main(String[] args) throws Exception {
    Path tessera = Path.of(args[0]).toAbsolutePath().resolve("opt/tessera");
    Path cache = Path.of(args[1]).toAbsolutePath();
    int perOffering = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    Files.deleteIfExists(cache);
    Path work = Files.createTempDirectory("tessera-controller-aot");
    try (var api = new MockApiServer(true)) {
      KubernetesClient client = api.client();
      List<String> nodes = seed(client, perOffering);
      var command = new ArrayList<String>();
      command.add(tessera.resolve("jre/bin/java").toString());
      command.add("@" + tessera.resolve("jvm.options"));
      command.add("-XX:AOTCacheOutput=" + cache);
      command.addAll(List.of("-jar", tessera.resolve("app.jar").toString()));
      Path log = work.resolve("controller.log");
      var builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.redirectOutput(log.toFile());
      builder
          .environment()
          .put("TESSERA_CONTROLLER_KUBECONFIG", api.writeKubeconfig(work).toString());
      builder.environment().put("TESSERA_CONTROLLER_METRICS_PORT", "0"); // a free port
      Process controller = builder.start();
      try {
        awaitPublished(client, nodes, controller, log);
      } finally {
        controller.destroy(); // SIGTERM: the JVM writes the cache as it exits
        if (!controller.waitFor(60, TimeUnit.SECONDS)) {
          controller.destroyForcibly();
          throw new IllegalStateException("the controller did not exit on SIGTERM\n" + tail(log));
        }
      }
      if (!Files.isRegularFile(cache)) {
        throw new IllegalStateException(
            "the training run wrote no AOT cache at " + cache + "\n" + tail(log));
      }
      // What the mock served differently from an API server shows here (hack/images prints it).
      List<String> warnings =
          Files.readAllLines(log).stream()
              .filter(l -> l.contains("WARN") || l.contains("ERROR"))
              .toList();
      System.err.printf(
          "trained on %d nodes in %d offerings; the controller logged %d warnings or errors%s%n",
          nodes.size(),
          Offering.values().length,
          warnings.size(),
          warnings.isEmpty() ? "" : ":\n" + String.join("\n", warnings));
    } finally {
      TestFiles.deleteTree(work);
    }
  }

  /** Creates each offering's nodes, GpuNodes and plugin Leases; returns the nodes' names. */
  private static List<String> seed(KubernetesClient client, int perOffering) throws Exception {
    var json = JsonMapper.builder().build();
    NodeInventory template = SimulatedInventories.node("H100-SXM5-80GB", 8);
    var names = new ArrayList<String>();
    int n = 0;
    for (Offering offering : Offering.values()) {
      for (int i = 0; i < perOffering; i++, n++) {
        String name = "training-" + offering.label() + "-" + i;
        @SuppressWarnings("unchecked")
        Map<String, Object> inventory =
            json.convertValue(Fleets.withOwnUuids(template, n), Map.class);
        SeededNodes.seed(
            client,
            name,
            offering,
            template.gpus().size(),
            InventoryStatus.compact(inventory),
            "kube-node-lease",
            "aot-training");
        names.add(name);
      }
    }
    return names;
  }

  /** Waits until every node has slices and its GpuNode says the offering it was labelled with. */
  private static void awaitPublished(
      KubernetesClient client, List<String> nodes, Process controller, Path log)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + PUBLISH_WITHIN.toNanos();
    while (true) {
      List<String> published = slicedNodes(client);
      long offerings =
          client.genericKubernetesResources(GpuNodeReporter.GPU_NODES).list().getItems().stream()
              .filter(g -> offeringWritten(g))
              .count();
      if (published.containsAll(nodes) && offerings == nodes.size()) {
        return;
      }
      if (!controller.isAlive()) {
        throw new IllegalStateException("the controller exited during training\n" + tail(log));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the controller did not publish "
                + nodes.size()
                + " nodes within "
                + PUBLISH_WITHIN
                + " (nodes with slices: "
                + published.size()
                + ", offerings written: "
                + offerings
                + ")\n"
                + tail(log));
      }
      Thread.sleep(200);
    }
  }

  private static List<String> slicedNodes(KubernetesClient client) {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .map(s -> s.getSpec().getNodeName())
        .distinct()
        .toList();
  }

  private static boolean offeringWritten(GenericKubernetesResource gpuNode) {
    Object status = gpuNode.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> map
        && gpuNode.getMetadata().getName().contains("-" + map.get("offering") + "-");
  }

  private static String tail(Path log) throws IOException {
    return Files.exists(log) ? TestFiles.tail(log, 40) : "(no log)";
  }
}
