package dev.tessera.demo;

import static org.awaitility.Awaitility.await;

import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tessera as host processes on the cluster's node: the node plugin's jar, registered with the real
 * kubelet through its plugin dirs, and the controller's jar, both with the admin kubeconfig.
 * Closing stops both.
 */
final class TesseraProcesses implements TesseraDeployment {
  private static final Path REPO = TesseraOnNode.repoFile(".");

  private final Cluster cluster;
  private final Path work;
  private final Map<String, String> pluginEnv;
  private final Map<String, String> controllerEnv;
  private final ControllerProcess controller;
  private PluginProcess plugin;
  private int keptLogs;

  private TesseraProcesses(
      Cluster cluster,
      Path work,
      Map<String, String> pluginEnv,
      Map<String, String> controllerEnv,
      PluginProcess plugin,
      ControllerProcess controller) {
    this.cluster = cluster;
    this.work = work;
    this.pluginEnv = Map.copyOf(pluginEnv);
    this.controllerEnv = Map.copyOf(controllerEnv);
    this.plugin = plugin;
    this.controller = controller;
  }

  /** Starts the plugin on {@code driverRoot} and one controller; waits for the registration. */
  static TesseraProcesses start(
      Cluster cluster, Path work, Path driverRoot, Map<String, String> controllerEnv)
      throws IOException {
    var env = new LinkedHashMap<String, String>();
    env.put("NODE_NAME", cluster.nodeName());
    env.put("TESSERA_REGISTRY_DIR", cluster.registryDir().toString());
    env.put("TESSERA_PLUGINS_DIR", cluster.pluginsDir().toString());
    env.put("TESSERA_CDI_DIR", cluster.cdiDir().toString());
    env.put("TESSERA_DRIVER_ROOT", driverRoot.toString());
    env.put("TESSERA_KUBECONFIG", cluster.adminKubeconfig().toString());
    env.put("TESSERA_METRICS_PORT", "-1");
    env.put("TESSERA_LEASE_DURATION", TesseraOnNode.PLUGIN_LEASE);
    env.put("TESSERA_HEALTH_RECOVERY", TesseraOnNode.HEALTH_RECOVERY);
    env.put("TESSERA_METRICS_PERIOD", TesseraOnNode.METRICS_PERIOD);
    env.put("TESSERA_METRICS_CLAIM_REFRESH", TesseraOnNode.METRICS_CLAIM_REFRESH);
    var plugin = startPlugin(work, env);
    var controller = startController(cluster, work.resolve("controller-1"), controllerEnv);
    var processes = new TesseraProcesses(cluster, work, env, controllerEnv, plugin, controller);
    processes.awaitRegistered();
    return processes;
  }

  private static ControllerProcess startController(
      Cluster cluster, Path dir, Map<String, String> extraEnv) throws IOException {
    var env = new LinkedHashMap<String, String>();
    env.put("TESSERA_CONTROLLER_KUBECONFIG", cluster.adminKubeconfig().toString());
    env.put("TESSERA_CONTROLLER_RESYNC", TesseraOnNode.CONTROLLER_RESYNC);
    env.put("TESSERA_CONTROLLER_LEASE_GRACE", TesseraOnNode.CONTROLLER_LEASE_GRACE);
    env.put("TESSERA_CONTROLLER_ELECTION_LEASE_DURATION", TesseraOnNode.CONTROLLER_ELECTION_LEASE);
    env.put("TESSERA_CONTROLLER_METRICS_PORT", "0"); // a free port, found in the log
    env.putAll(extraEnv);
    return ControllerProcess.start(
        REPO.resolve("controller/target/tessera-controller.jar"), dir, env);
  }

  /** Starts the node plugin's jar as its own process, configured by {@code env}. */
  static PluginProcess startPlugin(Path work, Map<String, String> env) throws IOException {
    return PluginProcess.start(
        REPO.resolve("kubelet-plugin/target/tessera-kubelet-plugin.jar"), work, jvmOptions(), env);
  }

  private static String jvmOptions() throws IOException {
    return String.join(" ", JvmOptions.read(REPO.resolve("kubelet-plugin/jvm.options")));
  }

  private void awaitRegistered() {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(plugin.log()).contains("registered with the kubelet"));
  }

  /** A second controller replica beside the first (leader election decides which publishes). */
  ControllerProcess startAnotherController() throws IOException {
    return startController(cluster, work.resolve("controller-2"), controllerEnv);
  }

  /**
   * Another controller replica in {@code work}/{@code name}, its settings those of the first but
   * for {@code env} (another kubeconfig, say).
   */
  ControllerProcess startAnotherController(String name, Map<String, String> env)
      throws IOException {
    var settings = new LinkedHashMap<>(controllerEnv);
    settings.putAll(env);
    return startController(cluster, work.resolve(name), settings);
  }

  /** Stops the node plugin as a pod termination would; its Lease is no longer renewed. */
  void stopPlugin() throws InterruptedException {
    plugin.close();
  }

  /**
   * Pauses the node plugin (SIGSTOP), as a plugin slow to renew its Lease: it neither renews nor
   * answers until {@link #resumePlugin}.
   */
  void pausePlugin() throws IOException, InterruptedException {
    signalPlugin("STOP");
  }

  /** Resumes the node plugin that {@link #pausePlugin} paused (SIGCONT). */
  void resumePlugin() throws IOException, InterruptedException {
    signalPlugin("CONT");
  }

  private void signalPlugin(String signal) throws IOException, InterruptedException {
    String pid = Long.toString(plugin.pid());
    int exit = new ProcessBuilder("kill", "-" + signal, pid).start().waitFor();
    if (exit != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid + " exited with " + exit);
    }
  }

  /** Starts the node plugin again and waits until the kubelet has registered it. */
  void startPlugin() throws IOException {
    plugin = startPlugin(work, pluginEnv);
    awaitRegistered();
  }

  /**
   * SIGKILL of the node plugin and the tools it runs, as a container kill, sparing {@code spared}
   * (the MPS daemons it started). Its log is kept beside the next one's ({@code plugin.log.<n>}).
   */
  void killPlugin(List<ProcessHandle> spared) throws InterruptedException, IOException {
    plugin.kill(spared);
    keepLog();
  }

  /**
   * Starts the node plugin again as the kubelet restarts a container: once more each time it exits
   * before it has registered (an NVML fault at start-up, say), up to {@code attempts} starts.
   * Returns how many starts failed before the one that registered.
   */
  int restartPlugin(int attempts) throws IOException, InterruptedException {
    for (int failed = 0; failed < attempts; failed++) {
      plugin = startPlugin(work, pluginEnv);
      PluginProcess starting = plugin;
      await().atMost(Duration.ofSeconds(60)).until(() -> !starting.alive() || registered(starting));
      if (registered(starting)) {
        return failed;
      }
      keepLog();
    }
    throw new IllegalStateException(
        "the node plugin exited before it registered, "
            + attempts
            + " times (logs in "
            + work
            + ")");
  }

  private static boolean registered(PluginProcess plugin) throws IOException {
    return Files.readString(plugin.log()).contains("registered with the kubelet");
  }

  private void keepLog() throws IOException {
    Path log = plugin.log();
    if (Files.exists(log)) {
      Files.move(log, log.resolveSibling("plugin.log." + keptLogs++));
    }
  }

  @Override
  public String logs(int lines) throws IOException {
    return tail("the node plugin", plugin.log(), lines)
        + tail("the controller", controller.log(), lines);
  }

  private static String tail(String what, Path log, int lines) throws IOException {
    return "--- the last %d lines of %s's log (%s):%n%s%n"
        .formatted(lines, what, log, Files.exists(log) ? TestFiles.tail(log, lines) : "");
  }

  PluginProcess plugin() {
    return plugin;
  }

  ControllerProcess controller() {
    return controller;
  }

  @Override
  public String leaseNamespace() {
    return "kube-node-lease";
  }

  @Override
  public String controllerMetrics() throws IOException, InterruptedException {
    return controller.metrics();
  }

  /** The plugin runs on this host: its announced port on the loopback. */
  @Override
  public String pluginMetrics() throws IOException, InterruptedException {
    return PluginMetrics.get("127.0.0.1", PluginMetrics.port(Files.readString(plugin.log())));
  }

  @Override
  public void close() throws Exception {
    controller.close();
    plugin.close();
  }
}
