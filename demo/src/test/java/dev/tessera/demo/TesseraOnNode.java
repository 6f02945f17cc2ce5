package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.DriverNames;
import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tessera running on the cluster's node with a simulated GPU driver root: the node plugin as a host
 * process registered with the real kubelet, the node's slices published once from what NVML reports
 * (standing in for the controller until it runs in the cluster), and Tessera's DeviceClasses
 * applied. Closing stops the plugin and removes what it published.
 */
final class TesseraOnNode implements AutoCloseable {
  private static final Pattern GPU_NODE = Pattern.compile("(?m)/dev/nvidia(\\d+)$");
  private static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", ".")).toAbsolutePath().normalize();

  private final Cluster cluster;
  private final Path work;
  private final KubernetesClient client;
  private final Map<String, String> pluginEnv;
  private final ControllerProcess controller;
  private final Map<String, String> controllerEnv;
  private PluginProcess plugin;

  private TesseraOnNode(
      Cluster cluster,
      Path work,
      KubernetesClient client,
      Map<String, String> pluginEnv,
      PluginProcess plugin,
      ControllerProcess controller,
      Map<String, String> controllerEnv) {
    this.cluster = cluster;
    this.work = work;
    this.client = client;
    this.pluginEnv = Map.copyOf(pluginEnv);
    this.plugin = plugin;
    this.controller = controller;
    this.controllerEnv = Map.copyOf(controllerEnv);
  }

  static TesseraOnNode start(
      Cluster cluster, String profile, int gpus, Offering offering, String... simulator)
      throws Exception {
    return start(cluster, profile, gpus, offering, Map.of(), simulator);
  }

  /** As above, with more env for the controller (its webhook's certificate, say). */
  static TesseraOnNode start(
      Cluster cluster,
      String profile,
      int gpus,
      Offering offering,
      Map<String, String> controllerEnv,
      String... simulator)
      throws Exception {
    Path work = Files.createTempDirectory("tessera-e2e");
    Path root = SimulatedNode.layOut(work.resolve("driver-root"), profile, gpus, simulator);
    var client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(cluster.adminKubeconfig())))
            .build();
    try (var in = Files.newInputStream(REPO.resolve("deploy/manifests/gpunode-crd.yaml"))) {
      client.load(in).forceConflicts().serverSideApply();
    }
    var env = new LinkedHashMap<String, String>();
    env.put("NODE_NAME", cluster.nodeName());
    env.put("TESSERA_REGISTRY_DIR", cluster.registryDir().toString());
    env.put("TESSERA_PLUGINS_DIR", cluster.pluginsDir().toString());
    env.put("TESSERA_CDI_DIR", cluster.cdiDir().toString());
    env.put("TESSERA_DRIVER_ROOT", root.toString());
    env.put("TESSERA_KUBECONFIG", cluster.adminKubeconfig().toString());
    env.put("TESSERA_METRICS_PORT", "-1");
    // A short Lease, so the controller notices a gone plugin well before the kubelet wipes its
    // slices (30 s) and the tests can tell the two apart.
    env.put("TESSERA_LEASE_DURATION", "4s");
    // Device problems clear after this much quiet (production default: 5 minutes).
    env.put("TESSERA_HEALTH_RECOVERY", "10s");
    var plugin = startPlugin(work, env);
    client
        .nodes()
        .withName(cluster.nodeName())
        .edit(
            n -> {
              n.getMetadata().getLabels().put(Offering.NODE_LABEL, offering.label());
              return n;
            });
    var controller = startController(cluster, work.resolve("controller-1"), controllerEnv);
    var node = new TesseraOnNode(cluster, work, client, env, plugin, controller, controllerEnv);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(plugin.log()).contains("registered with the kubelet"));
    // The plugin reports the node, the controller publishes its pool: wait for a complete pool.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              var slices = node.slices();
              return !slices.isEmpty()
                  && slices.size() == slices.get(0).getSpec().getPool().getResourceSliceCount();
            });
    node.apply(REPO.resolve("deploy/manifests/deviceclasses.yaml"));
    return node;
  }

  private static ControllerProcess startController(
      Cluster cluster, Path dir, Map<String, String> extraEnv) throws IOException {
    var env = new LinkedHashMap<String, String>();
    env.put("TESSERA_CONTROLLER_KUBECONFIG", cluster.adminKubeconfig().toString());
    env.put("TESSERA_CONTROLLER_RESYNC", "2s");
    env.put("TESSERA_CONTROLLER_LEASE_GRACE", "2s");
    env.put("TESSERA_CONTROLLER_ELECTION_LEASE_DURATION", "6s");
    env.put("TESSERA_CONTROLLER_METRICS_PORT", "0"); // a free port, found in the log
    env.putAll(extraEnv);
    return ControllerProcess.start(
        REPO.resolve("controller/target/tessera-controller.jar"), dir, env);
  }

  /** A second controller replica beside the first (leader election decides which publishes). */
  ControllerProcess startAnotherController() throws IOException {
    return startController(cluster, work.resolve("controller-2"), controllerEnv);
  }

  /** Starts the node plugin's jar as its own process, configured by {@code env}. */
  static PluginProcess startPlugin(Path work, Map<String, String> env) throws IOException {
    return PluginProcess.start(
        REPO.resolve("kubelet-plugin/target/tessera-kubelet-plugin.jar"), work, jvmOptions(), env);
  }

  /** Stops the node plugin as a pod termination would; its Lease is no longer renewed. */
  void stopPlugin() throws InterruptedException {
    plugin.close();
  }

  /** Starts the node plugin again and waits until the kubelet has registered it. */
  void startPlugin() throws IOException {
    plugin = startPlugin(work, pluginEnv);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(plugin.log()).contains("registered with the kubelet"));
  }

  /** The simulated driver root the plugin runs on. */
  Path driverRoot() {
    return Path.of(pluginEnv.get("TESSERA_DRIVER_ROOT"));
  }

  /** What a stand-in tool of the simulated driver root was asked to do (one line per call). */
  String driverToolLog(String tool) throws IOException {
    Path log =
        Path.of(pluginEnv.get("TESSERA_DRIVER_ROOT")).resolve("var/log/mock-nvml/" + tool + ".log");
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** Makes the simulated NVML report an event, e.g. {@code 0 xid 48} (see hack/mock-nvml). */
  void injectNvmlEvent(String line) throws IOException {
    Path events = Path.of(pluginEnv.get("TESSERA_DRIVER_ROOT")).resolve("var/lib/mock-nvml/events");
    Files.createDirectories(events.getParent());
    Files.writeString(events, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  KubernetesClient client() {
    return client;
  }

  String nodeName() {
    return cluster.nodeName();
  }

  PluginProcess plugin() {
    return plugin;
  }

  /** Applies a demo scenario (demo/scenarios/NAME/scenario.yaml). */
  void applyScenario(String name) throws IOException {
    System.out.printf("%n== scenario %s%n", name);
    apply(scenario(name));
  }

  /** Deletes the scenario and waits until the plugin has unprepared everything of it. */
  void deleteScenarioAndWaitForUnprepare(String name) throws IOException {
    deleteScenario(name);
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              assertThat(cdiSpecs()).isEmpty();
              assertThat(checkpointedClaims()).isEmpty();
            });
  }

  /** What a container printed (once done), checked for what every GPU container must see. */
  String saw(String pod, String container) {
    String log = logsWhenDone(pod, container);
    System.out.printf("--- %s%s saw:%n%s", pod, container == null ? "" : "/" + container, log);
    assertThat(log)
        .contains("NVIDIA_VISIBLE_DEVICES=void")
        .contains(
            "/dev/nvidiactl", "/dev/nvidia-uvm", "libcuda.so.1", "libnvidia-ml.so.1", "nvidia-smi");
    return log;
  }

  /** The GPU numbers of the {@code /dev/nvidiaN} nodes a container listed. */
  static List<String> gpus(String log) {
    Matcher m = GPU_NODE.matcher(log);
    var numbers = new ArrayList<String>();
    while (m.find()) {
      numbers.add(m.group(1));
    }
    return numbers;
  }

  List<ResourceClaim> claims() {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("default")
        .list()
        .getItems();
  }

  /**
   * Every claim in the namespace allocated and reported Ready by Tessera, with the device UUIDs.
   */
  void assertClaimsReady(int count) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(claims())
                    .hasSize(count)
                    .allSatisfy(
                        claim ->
                            assertThat(claim.getStatus().getDevices())
                                .isNotEmpty()
                                .allSatisfy(
                                    d -> {
                                      assertThat(d.getDriver())
                                          .isEqualTo(DriverNames.DEFAULT_DRIVER);
                                      assertThat(d.getConditions().get(0).getType())
                                          .isEqualTo("Ready");
                                      assertThat(d.getConditions().get(0).getStatus())
                                          .isEqualTo("True");
                                      assertThat(d.getData().toString())
                                          .containsPattern("(GPU|MIG)-");
                                    })));
  }

  void deleteScenario(String name) throws IOException {
    try (var in = Files.newInputStream(scenario(name))) {
      client.load(in).withGracePeriod(1).delete();
    }
  }

  /** The pod's (only container's) log once it printed its last line ({@code done}). */
  String logsWhenDone(String pod) {
    return logsWhenDone(pod, null);
  }

  /** A container's log once it printed its last line ({@code done}). */
  String logsWhenDone(String pod, String container) {
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions() // the log is refused while the container is being created
        .until(() -> log(pod, container).lines().anyMatch("done"::equals));
    return log(pod, container);
  }

  private String log(String pod, String container) {
    var podResource = client.pods().inNamespace("default").withName(pod);
    String log =
        container == null ? podResource.getLog() : podResource.inContainer(container).getLog();
    return log == null ? "" : log;
  }

  /** Claim UIDs in the plugin's checkpoint. */
  Set<String> checkpointedClaims() throws IOException {
    if (!Files.exists(plugin.checkpointFile())) {
      return Set.of();
    }
    var claims =
        JsonMapper.builder()
            .build()
            .readTree(Files.readString(plugin.checkpointFile()))
            .get("claims");
    return claims.propertyNames().stream().collect(Collectors.toSet());
  }

  /** Our CDI spec files in the node's CDI dir. */
  List<String> cdiSpecs() throws IOException {
    try (Stream<Path> files = Files.list(cluster.cdiDir())) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("k8s." + DriverNames.DEFAULT_DRIVER))
          .toList();
    }
  }

  Path scenario(String name) {
    return REPO.resolve("demo/scenarios").resolve(name).resolve("scenario.yaml");
  }

  /** A file of the repository, such as a manifest under deploy/. */
  static Path repoFile(String path) {
    return REPO.resolve(path);
  }

  /** Applies a manifest; returns what it applied. */
  List<HasMetadata> apply(Path manifest) throws IOException {
    try (var in = Files.newInputStream(manifest)) {
      return client.load(in).forceConflicts().serverSideApply();
    }
  }

  /** Tessera's slices of this node's pool, as the API server holds them. */
  List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
        .filter(s -> DriverNames.DEFAULT_DRIVER.equals(s.getSpec().getDriver()))
        .filter(s -> cluster.nodeName().equals(s.getSpec().getPool().getName()))
        .toList();
  }

  ControllerProcess controller() {
    return controller;
  }

  private static String jvmOptions() throws IOException {
    return Files.readAllLines(REPO.resolve("kubelet-plugin/jvm.options")).stream()
        .filter(l -> !l.startsWith("#") && !l.isBlank())
        .collect(Collectors.joining(" "));
  }

  @Override
  public void close() throws Exception {
    try {
      controller.close();
      plugin.close();
      client
          .nodes()
          .withName(cluster.nodeName())
          .edit(
              n -> {
                n.getMetadata().getLabels().remove(Offering.NODE_LABEL);
                return n;
              });
      client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
          .filter(s -> DriverNames.DEFAULT_DRIVER.equals(s.getSpec().getDriver()))
          .forEach(s -> client.resource(s).delete());
      // The DeviceClasses go too: the next test may install them another way (the Helm chart).
      try (var in = Files.newInputStream(REPO.resolve("deploy/manifests/deviceclasses.yaml"))) {
        client.load(in).delete();
      }
    } finally {
      client.close();
      TestFiles.deleteTree(work);
    }
  }
}
