package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.DriverNames;
import dev.tessera.controller.render.Offering;
import dev.tessera.demo.TesseraDeployment.Kind;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tessera running on the cluster's node with a simulated GPU driver root, deployed one of two ways
 * ({@link TesseraDeployment}: the Helm chart, or host processes), its node labelled with the
 * offering, and what the tests do with it: apply a demo scenario, read what its pods saw, check the
 * plugin's CDI specs and checkpoint on the node. Closing removes Tessera and what it published.
 */
final class TesseraOnNode implements AutoCloseable {
  // Quicker than production, so the tests see Lease expiry, resyncs and recovery in seconds.
  /**
   * The plugin's Lease: the controller notices a gone plugin well before the kubelet's 30 s wipe.
   */
  static final String PLUGIN_LEASE = "4s";

  /** Device problems clear after this much quiet (production default: 5 minutes). */
  static final String HEALTH_RECOVERY = "10s";

  /** The plugin's GPU metrics: sampled every second, a claim's pods read again every 2 s. */
  static final String METRICS_PERIOD = "1s";

  static final String METRICS_CLAIM_REFRESH = "2s";

  static final String CONTROLLER_RESYNC = "2s";
  static final String CONTROLLER_LEASE_GRACE = "2s";
  // The leader renews within two thirds of it (8 s) or gives the lead up and exits: 6 s (a 4 s
  // renewal) lost the lead once under CI's load on kind (a controller restart failed MigStaticE2E).
  // Failover still comes within the tests' 30 s.
  static final String CONTROLLER_ELECTION_LEASE = "12s";

  private static final Pattern GPU_NODE = Pattern.compile("(?m)/dev/nvidia(\\d+)$");
  private static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", ".")).toAbsolutePath().normalize();

  private final Cluster cluster;
  private final Path work;
  private final Path driverRoot;
  private final KubernetesClient client;
  private TesseraDeployment deployment;

  private TesseraOnNode(Cluster cluster, Path work, Path driverRoot, KubernetesClient client) {
    this.cluster = cluster;
    this.work = work;
    this.driverRoot = driverRoot;
    this.client = client;
  }

  /** Tessera deployed the way the E2E tier runs (Helm unless {@code tessera.e2e.deploy=host}). */
  static TesseraOnNode start(
      Cluster cluster, String profile, int gpus, Offering offering, String... simulator)
      throws Exception {
    return start(cluster, Kind.chosen(), profile, gpus, offering, Map.of(), simulator);
  }

  /** Tessera by its Helm chart with {@code helmValues} ({@code key=value}) over the tests' own. */
  static TesseraOnNode startWithHelmValues(
      Cluster cluster, String profile, int gpus, Offering offering, List<String> helmValues)
      throws Exception {
    return start(cluster, Kind.HELM, profile, gpus, offering, Map.of(), helmValues);
  }

  /** Tessera as host processes, for tests that stop and start the plugin or controller. */
  static TesseraOnNode startAsProcesses(
      Cluster cluster, String profile, int gpus, Offering offering) throws Exception {
    return start(cluster, Kind.HOST, profile, gpus, offering, Map.of());
  }

  /**
   * Tessera on a simulated node of {@code gpus} GPUs of {@code profile} (mock-nvml-setup's {@code
   * simulator} flags), deployed as {@code kind}; {@code controllerEnv} adds env vars to a host
   * process controller (its webhook's certificate, say). Waits until the node's pool is published
   * complete.
   */
  static TesseraOnNode start(
      Cluster cluster,
      Kind kind,
      String profile,
      int gpus,
      Offering offering,
      Map<String, String> controllerEnv,
      String... simulator)
      throws Exception {
    return start(cluster, kind, profile, gpus, offering, controllerEnv, List.of(), simulator);
  }

  private static TesseraOnNode start(
      Cluster cluster,
      Kind kind,
      String profile,
      int gpus,
      Offering offering,
      Map<String, String> controllerEnv,
      List<String> helmValues,
      String... simulator)
      throws Exception {
    Path work = cluster.newWorkDir();
    Path root = SimulatedNode.layOut(work.resolve("driver-root"), profile, gpus, simulator);
    var client = cluster.adminClient();
    var node = new TesseraOnNode(cluster, work, root, client);
    try {
      node.label(offering);
      // DeviceClasses applied without Helm would block a release owning them; the chart brings its
      // own, the manifests serve host processes.
      node.deleteManifestDeviceClasses();
      System.out.printf("%n== Tessera as %s on %d x %s (%s)%n", kind, gpus, profile, offering);
      if (kind == Kind.HELM) {
        node.deployment = TesseraRelease.install(cluster, client, root, helmValues);
      } else {
        node.apply(REPO.resolve("deploy/manifests/gpunode-crd.yaml"));
        node.deployment = TesseraProcesses.start(cluster, work, root, controllerEnv);
      }
      // The plugin reports the node, the controller publishes its pool: wait for a complete pool.
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                var slices = node.slices();
                return !slices.isEmpty()
                    && slices.size() == slices.get(0).getSpec().getPool().getResourceSliceCount();
              });
      if (kind == Kind.HOST) {
        node.apply(REPO.resolve("deploy/manifests/deviceclasses.yaml"));
      }
      return node;
    } catch (Exception | AssertionError e) {
      try {
        node.close();
      } catch (Exception | AssertionError cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /** Labels the node with the offering the controller renders its pool by. */
  void label(Offering offering) {
    NodeLabels.set(client, cluster.nodeName(), Offering.NODE_LABEL, offering.label());
  }

  private void deleteManifestDeviceClasses() throws IOException {
    try (var in = Files.newInputStream(REPO.resolve("deploy/manifests/deviceclasses.yaml"))) {
      client.load(in).delete();
    }
  }

  /** How Tessera runs here. */
  TesseraDeployment deployment() {
    return deployment;
  }

  /** Tessera's host processes; fails for a test that runs on the Helm release. */
  TesseraProcesses processes() {
    if (deployment instanceof TesseraProcesses processes) {
      return processes;
    }
    throw new IllegalStateException("this test needs Tessera as host processes, not " + deployment);
  }

  /** Tessera's Helm release; fails for a test that runs on host processes. */
  TesseraRelease release() {
    if (deployment instanceof TesseraRelease release) {
      return release;
    }
    throw new IllegalStateException("this test needs Tessera's Helm release, not " + deployment);
  }

  /** The simulated driver root the plugin runs on. */
  Path driverRoot() {
    return driverRoot;
  }

  /** What a stand-in tool of the simulated driver root was asked to do (one line per call). */
  String driverToolLog(String tool) throws IOException {
    Path log = driverRoot.resolve("var/log/mock-nvml/" + tool + ".log");
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** Makes the simulated NVML report an event, e.g. {@code 0 xid 48} (see hack/mock-nvml). */
  /**
   * How many MPS control daemons were started on the node: the simulator's stand-in logs each
   * start, {@code -d} as a child of the plugin, {@code -f} in a daemon's own pod.
   */
  long mpsDaemonStarts() throws IOException {
    return driverToolLog("nvidia-cuda-mps-control")
        .lines()
        .filter(l -> l.startsWith("-d ") || l.startsWith("-f "))
        .count();
  }

  void injectNvmlEvent(String line) throws IOException {
    Path events = driverRoot.resolve("var/lib/mock-nvml/events");
    Files.createDirectories(events.getParent());
    Files.writeString(events, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /**
   * Makes the simulated NVML fail a call, e.g. {@code nvmlDeviceGetName NVML_ERROR_UNKNOWN 1}
   * (hack/mock-nvml, "Fault injection"); the simulator re-reads the file at its next call.
   */
  void injectNvmlFault(String line) throws IOException {
    Path faults = driverRoot.resolve("etc/mock-nvml/faults");
    Files.createDirectories(faults.getParent());
    Files.writeString(faults, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** Removes every fault line (hack/mock-nvml keeps spent ones with a count of 0); returns them. */
  List<String> clearNvmlFaults() throws IOException {
    Path faults = driverRoot.resolve("etc/mock-nvml/faults");
    if (!Files.exists(faults)) {
      return List.of();
    }
    List<String> lines =
        Files.readAllLines(faults).stream()
            .filter(l -> !l.isBlank() && !l.startsWith("#"))
            .toList();
    Files.writeString(faults, "# <nvmlSymbol> <nvmlReturn code or NVML_ERROR_NAME> [count]\n");
    return lines;
  }

  /**
   * Sets the simulator's {@code delay_ms.<symbol>} (0: removes it). The simulator reads its config
   * when NVML is initialized, so the delay takes effect when the plugin next starts.
   */
  void setNvmlDelay(String symbol, int millis) throws IOException {
    Path config = driverRoot.resolve("etc/mock-nvml/config");
    String key = "delay_ms." + symbol + "=";
    var lines =
        new ArrayList<>(
            Files.readAllLines(config).stream().filter(l -> !l.startsWith(key)).toList());
    if (millis > 0) {
      lines.add(key + millis);
    }
    Path next = config.resolveSibling("config.campaign");
    Files.write(next, lines);
    Files.move(next, config, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Sets a value the simulated NVML reports, e.g. {@code 0 gpu_util 87} or {@code 0 mps_process
   * 4242 1073741824} (hack/mock-nvml, "Telemetry injection"); re-read at the simulator's next call.
   */
  void injectTelemetry(String line) throws IOException {
    Path telemetry = driverRoot.resolve("var/lib/mock-nvml/telemetry");
    Files.createDirectories(telemetry.getParent());
    Files.writeString(telemetry, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** What the node plugin's {@code /prometheus} serves now. */
  String pluginMetrics() throws IOException, InterruptedException {
    return deployment.pluginMetrics();
  }

  KubernetesClient client() {
    return client;
  }

  String nodeName() {
    return cluster.nodeName();
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
              // A pod still terminating would be patched, not made anew, by the next apply of the
              // scenario, and its log read as the new pod's.
              assertThat(scenarioPodsLeft(name)).isEmpty();
            });
  }

  /** The scenario's pods the API server still has. */
  private List<String> scenarioPodsLeft(String name) throws IOException {
    try (var in = Files.newInputStream(scenario(name))) {
      return client.load(in).items().stream()
          .filter(o -> o instanceof io.fabric8.kubernetes.api.model.Pod)
          .filter(
              o ->
                  client
                          .pods()
                          .inNamespace(
                              o.getMetadata().getNamespace() == null
                                  ? "default"
                                  : o.getMetadata().getNamespace())
                          .withName(o.getMetadata().getName())
                          .get()
                      != null)
          .map(o -> o.getMetadata().getName())
          .toList();
    }
  }

  /** What a container printed (once done), checked for what every GPU container must see. */
  String saw(String pod, String container) {
    return saw("default", pod, container);
  }

  /** {@link #saw(String, String)} for a pod in {@code namespace}. */
  String saw(String namespace, String pod, String container) {
    String log = logsWhenDone(namespace, pod, container);
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
    return claims("default");
  }

  List<ResourceClaim> claims(String namespace) {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(namespace)
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

  /** Prints the scenario's claims (what it shows), then deletes it. */
  void deleteScenario(String name) throws IOException {
    printClaims();
    try (var in = Files.newInputStream(scenario(name))) {
      client.load(in).withGracePeriod(1).delete();
    }
  }

  /**
   * Prints every claim in the cluster: what it was allocated (request, device, pool), who it is
   * reserved for, and the status Tessera wrote for each device.
   */
  void printClaims() {
    System.out.print(describeClaims());
  }

  private String describeClaims() {
    var s = new StringBuilder();
    var all = client.dynamicResourceAllocation().v1().resourceClaims().inAnyNamespace().list();
    for (ResourceClaim claim : all.getItems()) {
      s.append(describe(claim));
    }
    return s.toString();
  }

  /**
   * The cluster's DeviceTaintRules, a line each: what they taint, with which effect. A cluster that
   * does not serve them says so in their place.
   */
  private String describeDeviceTaintRules() {
    var s = new StringBuilder();
    try {
      for (var rule :
          client
              .genericKubernetesResources("resource.k8s.io/v1", "DeviceTaintRule")
              .list()
              .getItems()) {
        s.append(
            "--- device taint rule %s: %s%n"
                .formatted(
                    rule.getMetadata().getName(), rule.getAdditionalProperties().get("spec")));
      }
    } catch (KubernetesClientException e) {
      s.append("--- device taint rules not listed: %s%n".formatted(e.getMessage()));
    }
    return s.toString();
  }

  static String describe(ResourceClaim claim) {
    var s = new StringBuilder("--- claim ");
    s.append(claim.getMetadata().getNamespace()).append('/').append(claim.getMetadata().getName());
    var status = claim.getStatus();
    if (status == null || status.getAllocation() == null) {
      return s.append(": not allocated\n").toString();
    }
    s.append(":\n");
    for (var r : status.getAllocation().getDevices().getResults()) {
      s.append(
          "      allocated: request %s -> device %s of pool %s (%s)%s%n"
              .formatted(
                  r.getRequest(),
                  r.getDevice(),
                  r.getPool(),
                  r.getDriver(),
                  Boolean.TRUE.equals(r.getAdminAccess()) ? ", admin access" : ""));
    }
    if (status.getReservedFor() != null) {
      for (var c : status.getReservedFor()) {
        s.append("      reserved for: %s %s%n".formatted(c.getResource(), c.getName()));
      }
    }
    if (status.getDevices() != null) {
      for (var d : status.getDevices()) {
        String conditions =
            d.getConditions() == null
                ? ""
                : d.getConditions().stream()
                    .map(
                        c ->
                            c.getType()
                                + "="
                                + c.getStatus()
                                + (c.getMessage() == null || c.getMessage().isBlank()
                                    ? ""
                                    : " (" + c.getMessage() + ")"))
                    .collect(Collectors.joining(", "));
        s.append(
            "      status: device %s %s, data %s%n"
                .formatted(d.getDevice(), conditions, d.getData()));
      }
    }
    return s.toString();
  }

  /** The pod's (only container's) log once it printed its last line ({@code done}). */
  String logsWhenDone(String pod) {
    return logsWhenDone(pod, null);
  }

  /** A container's log once it printed its last line ({@code done}). */
  String logsWhenDone(String pod, String container) {
    return logsWhenDone("default", pod, container);
  }

  /** How long a scenario's pod has to print {@code done}. */
  private static final Duration DONE_WITHIN = Duration.ofSeconds(120);

  private String logsWhenDone(String namespace, String pod, String container) {
    try {
      await()
          .atMost(DONE_WITHIN)
          .ignoreExceptions() // the log is refused while the container is being created
          .until(() -> log(namespace, pod, container).lines().anyMatch("done"::equals));
    } catch (ConditionTimeoutException e) {
      // A pod that never ran says why only in its conditions and events (the scheduler's reason),
      // and CI's excerpt of a failed run shows the failures' messages, not what the tests printed:
      // the why goes in the message. What cannot be read is added to the timeout, never thrown in
      // its place.
      String why;
      try {
        why = whyNotRunning(namespace, pod) + describeClaims() + describeDeviceTaintRules();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
        throw e;
      }
      System.out.print(why);
      throw new AssertionError(
          "%s/%s printed no 'done' within %d s:%n%s"
              .formatted(namespace, pod, DONE_WITHIN.toSeconds(), why),
          e);
    }
    return log(namespace, pod, container);
  }

  /** A pod's phase, conditions and events, as {@code kubectl describe} shows them. */
  private String whyNotRunning(String namespace, String pod) {
    Pod p = client.pods().inNamespace(namespace).withName(pod).get();
    if (p == null || p.getStatus() == null) {
      return "--- pod %s/%s: %s%n".formatted(namespace, pod, p == null ? "not found" : "no status");
    }
    var s = new StringBuilder();
    s.append(
        "--- pod %s/%s: %s, node %s%n"
            .formatted(namespace, pod, p.getStatus().getPhase(), p.getSpec().getNodeName()));
    for (PodCondition c : p.getStatus().getConditions()) {
      s.append(
          "  condition %s=%s %s %s%n"
              .formatted(c.getType(), c.getStatus(), c.getReason(), c.getMessage()));
    }
    client
        .v1()
        .events()
        .inNamespace(namespace)
        .withField("involvedObject.name", pod)
        .list()
        .getItems()
        .forEach(
            ev ->
                s.append(
                    "  event %s %s (x%d, %s): %s%n"
                        .formatted(
                            ev.getType(),
                            ev.getReason(),
                            ev.getCount(),
                            ev.getLastTimestamp(),
                            ev.getMessage())));
    return s.toString();
  }

  private String log(String namespace, String pod, String container) {
    var podResource = client.pods().inNamespace(namespace).withName(pod);
    String log =
        container == null ? podResource.getLog() : podResource.inContainer(container).getLog();
    return log == null ? "" : log;
  }

  /** Claim UIDs in the plugin's checkpoint (in the kubelet's plugins dir, either way). */
  Set<String> checkpointedClaims() throws IOException {
    Path checkpoint =
        cluster.pluginsDir().resolve(DriverNames.DEFAULT_DRIVER).resolve("checkpoint.json");
    if (!Files.exists(checkpoint)) {
      return Set.of();
    }
    var claims = JsonMapper.builder().build().readTree(Files.readString(checkpoint)).get("claims");
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
    if (manifest.startsWith(REPO.resolve("demo/scenarios"))
        && !manifest.getFileName().toString().equals("scenario.yaml")) {
      // The demo report shows a scenario's other files where its test says it applied them.
      System.out.printf("--- applied %s%n", REPO.relativize(manifest));
    }
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

  /**
   * Each of this node's slices by name, with its UID: a slice withdrawn and published again comes
   * back under a new UID, which tests that must see none withdrawn compare.
   */
  Map<String, String> sliceUids() {
    return slices().stream()
        .collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s.getMetadata().getUid()));
  }

  @Override
  public void close() throws Exception {
    try {
      try {
        if (deployment != null) {
          deployment.close();
        }
      } finally {
        // What the deployment published or labelled goes even when its removal failed: left-over
        // slices would pass the next test's wait for a complete pool.
        removePublished();
      }
    } finally {
      client.close();
      TestFiles.deleteTree(work);
    }
  }

  private void removePublished() throws IOException {
    NodeLabels.set(client, cluster.nodeName(), Offering.NODE_LABEL, null);
    client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
        .filter(s -> DriverNames.DEFAULT_DRIVER.equals(s.getSpec().getDriver()))
        .forEach(s -> client.resource(s).delete());
    // The DeviceClasses go too: the next test may install them another way.
    deleteManifestDeviceClasses();
  }
}
