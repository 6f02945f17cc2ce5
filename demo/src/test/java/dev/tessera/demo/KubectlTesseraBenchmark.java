package dev.tessera.demo;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.render.Fleets;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.nvml.JnaNvml;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Start-up and answer time of {@code kubectl-tessera} on a 100-node cluster: a bare API server
 * (hack/bench-kubectl-tessera starts it; no kubelets, no scheduler, no controller) holding {@code
 * nodes} Nodes with 8 simulated H100s each, a GpuNode per node and the ResourceSlices Tessera's
 * renderer and PoolSlices make for it (exclusive, mig-dynamic and shared nodes in turn), plus
 * allocated claims written the way the scheduler writes them (status.allocation with pool, device
 * and consumed capacity; reservedFor) and one pending claim. Times each command as the user waits
 * for it (process start to exit), with and without the install's class cache. Prints Markdown.
 *
 * <p>Arguments: {@code KUBECONFIG LAUNCHER [nodes] [runs] [offerings]} (defaults 100 nodes, 5 runs,
 * {@code exclusive,mig-dynamic,shared}: the nodes take them in turn).
 */
public final class KubectlTesseraBenchmark {
  private static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", ".")).toAbsolutePath().normalize();
  private static final String D = "gpu.tessera.dev";

  private KubectlTesseraBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path kubeconfig = Path.of(args[0]);
    Path launcher = Path.of(args[1]);
    int nodes = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    List<Offering> offerings =
        java.util.Arrays.stream(
                (args.length > 4 ? args[4] : "exclusive,mig-dynamic,shared").split(","))
            .map(label -> Offering.fromLabel(label).orElseThrow())
            .toList();
    Path work = Files.createTempDirectory("tessera-cli-bench");
    NodeInventory template;
    try {
      template = inventory(work);
    } finally {
      TestFiles.deleteTree(work); // the simulated node is read once, for its inventory
    }
    var config = Config.fromKubeconfig(Files.readString(kubeconfig));
    int claims;
    long slices;
    long ready;
    long t0 = System.nanoTime();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        ExecutorService pool = Executors.newFixedThreadPool(8)) {
      for (String manifest :
          List.of("deploy/manifests/gpunode-crd.yaml", "deploy/manifests/deviceclasses.yaml")) {
        try (var in = Files.newInputStream(REPO.resolve(manifest))) {
          client.load(in).forceConflicts().serverSideApply();
        }
      }
      Thread.sleep(2000); // the CRD's endpoints come up
      List<Future<Integer>> created = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        int n = i;
        created.add(pool.submit(() -> createNode(client, template, offerings, n)));
      }
      claims = 0;
      for (Future<Integer> f : created) {
        claims += f.get();
      }
      client
          .resource(
              pending(
                  "too-big",
                  "device.capacity[\"gpu.tessera.dev\"].memory.compareTo(quantity(\"200Gi\")) >= 0"))
          .create();
      slices = client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().size();
      ready = readyNodes(client, nodes);
    }
    double seedSeconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "%d nodes (8 x H100 each; %s in turn; %d Ready, kept so by kwok), %d ResourceSlices,"
            + " %d allocated claims + 1 pending; seeded in %.1f s%n%n",
        nodes,
        offerings.stream().map(Offering::label).toList(),
        ready,
        slices,
        claims,
        seedSeconds);
    System.out.println(
        "| command | class cache | first run | median of " + runs + " | min | max |");
    System.out.println("|---|---|---|---|---|---|");
    for (List<String> command :
        List.of(List.of("help"), List.of("nodes"), List.of("why", "too-big", "-n", "default"))) {
      for (String cache : List.of("none", "aot")) {
        var times = new ArrayList<Double>();
        for (int r = 0; r <= runs; r++) {
          times.add(run(launcher, kubeconfig, cache, command, work));
        }
        double first = times.removeFirst();
        times.sort(null);
        System.out.printf(
            Locale.ROOT,
            "| `kubectl tessera %s` | %s | %.2f s | %.2f s | %.2f s | %.2f s |%n",
            String.join(" ", command),
            cache,
            first,
            times.get(times.size() / 2),
            times.getFirst(),
            times.getLast());
      }
    }
    System.out.println();
    for (List<String> command :
        List.of(List.of("nodes"), List.of("why", "too-big", "-n", "default"))) {
      run(launcher, kubeconfig, "aot", command, work);
      System.out.printf(
          "`kubectl tessera %s` (aot): %s%n",
          String.join(" ", command),
          Files.readAllLines(work.resolve("out.txt")).stream()
              .filter(l -> l.startsWith("timing:"))
              .findFirst()
              .orElse("no timing line"));
    }
    System.out.println();
    System.out.println("`kubectl tessera why too-big -n default` printed:");
    System.out.println("```");
    run(launcher, kubeconfig, "aot", List.of("why", "too-big", "-n", "default"), work);
    System.out.println(TestFiles.tail(work.resolve("out.txt"), 12));
    System.out.println("```");
  }

  /** How many of the nodes are Ready, once all are or after a minute. */
  private static long readyNodes(KubernetesClient client, int nodes) throws InterruptedException {
    long ready = 0;
    for (int i = 0; i < 60 && ready < nodes; i++) {
      ready =
          client.nodes().list().getItems().stream()
              .filter(
                  n ->
                      n.getStatus() != null
                          && n.getStatus().getConditions() != null
                          && n.getStatus().getConditions().stream()
                              .anyMatch(
                                  c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
              .count();
      if (ready < nodes) {
        Thread.sleep(1000);
      }
    }
    return ready;
  }

  /** Seconds from process start to exit; the output goes to work/out.txt. */
  private static double run(
      Path launcher, Path kubeconfig, String cache, List<String> command, Path work)
      throws Exception {
    var line = new ArrayList<String>();
    line.add(launcher.toString());
    line.addAll(command);
    var builder =
        new ProcessBuilder(line)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("out.txt").toFile());
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    builder.environment().put("TESSERA_CLI_CACHE", cache);
    builder.environment().put("KUBECTL_TESSERA_TIMING", "1");
    long start = System.nanoTime();
    Process p = builder.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(command + " did not finish in 60 s");
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          command
              + " exited "
              + p.exitValue()
              + ":\n"
              + TestFiles.tail(work.resolve("out.txt"), 20)
              + "\n");
    }
    return seconds;
  }

  private static NodeInventory inventory(Path work) throws Exception {
    Path root = SimulatedNode.layOut(work.resolve("driver-root"), "H100-SXM5-80GB", 8);
    try (var nvml = JnaNvml.open(root)) {
      return GpuDiscovery.onNode(nvml, root).discover();
    }
  }

  /** One node, its GpuNode and slices as the controller publishes them, and its claims. */
  private static int createNode(
      KubernetesClient client, NodeInventory template, List<Offering> offerings, int n) {
    String name = "bench-node-" + n;
    Offering offering = offerings.get(n % offerings.size());
    Node node =
        client
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    // kwok (hack/bench-kubectl-tessera runs it) keeps the node Ready.
                    .addToAnnotations("kwok.x-k8s.io/node", "fake")
                    .addToLabels(Offering.NODE_LABEL, offering.label())
                    .endMetadata()
                    .build())
            .create();
    var gpuNode =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(GpuNodeNames.API_VERSION)
            .withKind(GpuNodeNames.KIND)
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .build();
    gpuNode.setAdditionalProperty("spec", Map.of("nodeName", name));
    client.genericKubernetesResources(GpuNodeReporter.GPU_NODES).resource(gpuNode).create();
    NodeInventory inventory = Fleets.withOwnUuids(template, n);
    List<ResourceSlice> slices =
        new PoolSlices(D)
            .slices(
                name,
                node.getMetadata().getUid(),
                1,
                new SliceRenderer().render(inventory, offering));
    List<Device> devices = new ArrayList<>();
    for (ResourceSlice slice : slices) {
      client.resource(slice).create();
      if (slice.getSpec().getDevices() != null) {
        devices.addAll(slice.getSpec().getDevices());
      }
    }
    // What the scheduler would have allocated: half the GPUs (exclusive), two 1g.10gb placements
    // on GPU 0 (mig-dynamic), two 16 GiB shares of GPU 0 (shared).
    List<String> held =
        switch (offering) {
          case EXCLUSIVE -> List.of("gpu-0", "gpu-1", "gpu-2", "gpu-3");
          case MIG_DYNAMIC ->
              devices.stream()
                  .map(Device::getName)
                  .filter(d -> d.startsWith("gpu-0-mig-1g.10gb"))
                  .limit(2)
                  .toList();
          default -> List.of("gpu-0", "gpu-0");
        };
    for (int i = 0; i < held.size(); i++) {
      String claimName = name + "-claim-" + i;
      ResourceClaim created = client.resource(pending(claimName, null)).create();
      var result =
          new DeviceRequestAllocationResultBuilder()
              .withRequest("gpu")
              .withDriver(D)
              .withPool(name)
              .withDevice(held.get(i));
      if (offering == Offering.SHARED) {
        result
            .withShareID(UUID.randomUUID().toString())
            .withConsumedCapacity(
                Map.of("memory", new Quantity("16Gi"), "compute", new Quantity("0")));
      }
      client
          .resource(
              new ResourceClaimBuilder(created)
                  .withNewStatus()
                  .withNewAllocation()
                  .withNewDevices()
                  .withResults(result.build())
                  .endDevices()
                  .endAllocation()
                  .addNewReservedFor()
                  .withResource("pods")
                  .withName(claimName + "-pod")
                  .withUid(UUID.randomUUID().toString())
                  .endReservedFor()
                  .endStatus()
                  .build())
          .updateStatus();
    }
    return held.size();
  }

  private static ResourceClaim pending(String name, String selector) {
    var exactly =
        new ResourceClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withNewDevices()
            .addNewRequest()
            .withName("gpu")
            .withNewExactly()
            .withDeviceClassName(D);
    if (selector != null) {
      exactly = exactly.addNewSelector().withNewCel(selector).endSelector();
    }
    return exactly.endExactly().endRequest().endDevices().endSpec().build();
  }
}
