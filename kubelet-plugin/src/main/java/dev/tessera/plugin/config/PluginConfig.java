package dev.tessera.plugin.config;

import dev.tessera.plugin.cdi.DriverRoot;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * The node plugin's settings ({@code tessera.*}; defaults in tessera-defaults.properties, each also
 * an env var such as {@code TESSERA_NODE_NAME}).
 *
 * @param driverName the DRA driver name, also the name of the socket files
 * @param nodeName the node this plugin runs on (from the downward API); its pool's name
 * @param registryDir the kubelet's plugin registry, watched for registration sockets
 * @param pluginsDir the kubelet's plugins dir; the DRA socket lives in {@code <dir>/<driver>/}
 * @param dataDir where the checkpoint and the MPS daemons' directories live; defaults to {@code
 *     <pluginsDir>/<driver>}
 * @param cdiDir where CDI specs are written for the container runtime
 * @param driverRoot where the NVIDIA driver's files are in the plugin's file system (/ on a host
 *     install when the plugin runs on the host; a DaemonSet mounts the host's driver root
 *     elsewhere)
 * @param hostDriverRoot where the same files are on the host, which CDI specs must name; defaults
 *     to {@code driverRoot}
 * @param bootIdFile the kernel's boot ID, to tell a reboot from a restart
 * @param kubeconfig a kubeconfig file; empty for in-cluster config or $KUBECONFIG
 * @param statusWriteDelay how long a claim's status write waits for a newer one of the same claim
 *     (batches writes under churn; the kubelet never waits for them)
 * @param leaseNamespace where the plugin's Lease ({@code tessera-<node>}) lives
 * @param leaseDuration how long the Lease holds without renewal (renewed every quarter of it)
 * @param instance names this plugin process's sockets apart from another instance's on the node
 *     (the pod's UID in a DaemonSet, so a rolling upgrade runs old and new side by side); empty for
 *     the plain names
 * @param healthRecovery how long a device problem must stay unseen (with the GPU answering NVML)
 *     before the device counts as healthy again
 * @param healthIgnoredXids XIDs to publish as informational only, besides the application XIDs
 * @param toolTimeout how long a driver tool ({@code nvidia-smi}, {@code nvidia-cuda-mps-control})
 *     may take before the prepare that runs it fails
 * @param podName the plugin's pod (from the downward API, {@code POD_NAME}), the holder it writes
 *     into its Lease; defaults to {@code <node>-<pid>} for a plugin outside a pod
 * @param metricsPeriod how often the GPU metrics are sampled from NVML (on their own thread)
 * @param metricsPort the port of {@code /prometheus} and {@code /health} ({@code
 *     TESSERA_METRICS_PORT}); -1 for a free one, which the {@code serving metrics} log line names
 * @param metricsClaimRefresh how often a prepared claim is read again for its metrics' labels (the
 *     pods reserving it); at most once per claim in this time
 * @param mpsDaemons where MPS control daemons run: {@code pods} of their own on the node (a plugin
 *     in a pod; they outlive it), or {@code processes}, children of the plugin (a plugin on the
 *     host, no image to run a pod from)
 * @param mpsDaemonImage the image of the daemons' pods (the plugin's own)
 * @param mpsDaemonPullPolicy its pull policy
 * @param mpsDaemonNamespace where the daemons' pods are created (the release namespace)
 * @param mpsDaemonPrivileged whether the daemons' containers are privileged (as the plugin's)
 * @param driverRootReadOnly whether the daemons' pods mount the driver root read-only (as the
 *     plugin's)
 * @param mpsDaemonPriorityClass the daemons' pods' priority class (the plugin's); empty for none
 */
@ConfigurationProperties("tessera")
public record PluginConfig(
    @Bindable(defaultValue = "gpu.tessera.dev") String driverName,
    String nodeName,
    @Bindable(defaultValue = "/var/lib/kubelet/plugins_registry") String registryDir,
    @Bindable(defaultValue = "/var/lib/kubelet/plugins") String pluginsDir,
    @Nullable String dataDir,
    @Bindable(defaultValue = "/var/run/cdi") String cdiDir,
    @Bindable(defaultValue = "/") String driverRoot,
    @Nullable String hostDriverRoot,
    @Bindable(defaultValue = "/proc/sys/kernel/random/boot_id") String bootIdFile,
    @Nullable String kubeconfig,
    @Bindable(defaultValue = "100ms") Duration statusWriteDelay,
    @Bindable(defaultValue = "kube-node-lease") String leaseNamespace,
    @Bindable(defaultValue = "40s") Duration leaseDuration,
    @Nullable String instance,
    @Bindable(defaultValue = "5m") Duration healthRecovery,
    @Nullable List<Integer> healthIgnoredXids,
    @Bindable(defaultValue = "30s") Duration toolTimeout,
    @Nullable String podName,
    @Bindable(defaultValue = "10s") Duration metricsPeriod,
    @Bindable(defaultValue = "1m") Duration metricsClaimRefresh,
    @Bindable(defaultValue = "8081") int metricsPort,
    @Bindable(defaultValue = "processes") String mpsDaemons,
    @Nullable String mpsDaemonImage,
    @Bindable(defaultValue = "IfNotPresent") String mpsDaemonPullPolicy,
    @Nullable String mpsDaemonNamespace,
    @Bindable(defaultValue = "false") boolean mpsDaemonPrivileged,
    @Bindable(defaultValue = "true") boolean driverRootReadOnly,
    @Nullable String mpsDaemonPriorityClass) {

  public PluginConfig {
    healthIgnoredXids = healthIgnoredXids == null ? List.of() : List.copyOf(healthIgnoredXids);
    if (nodeName == null || nodeName.isBlank()) {
      throw new IllegalArgumentException(
          "tessera.node-name is required (set NODE_NAME from the downward API)");
    }
    if (!mpsDaemons.equals("processes") && !mpsDaemons.equals("pods")) {
      throw new IllegalArgumentException(
          "tessera.mps-daemons must be pods or processes, not " + mpsDaemons);
    }
    // The parameter, not mpsDaemonsInPods(): a compact constructor assigns the fields at its end.
    if (mpsDaemons.equals("pods")
        && (mpsDaemonImage == null
            || mpsDaemonImage.isBlank()
            || mpsDaemonNamespace == null
            || mpsDaemonNamespace.isBlank())) {
      throw new IllegalArgumentException(
          "tessera.mps-daemons=pods needs tessera.mps-daemon-image and"
              + " tessera.mps-daemon-namespace");
    }
    mpsDaemonPriorityClass = mpsDaemonPriorityClass == null ? "" : mpsDaemonPriorityClass;
  }

  public boolean mpsDaemonsInPods() {
    return mpsDaemons.equals("pods");
  }

  /** Who holds the node's Lease: the pod, else this process on the node. */
  public String leaseHolder() {
    return podName == null || podName.isBlank()
        ? nodeName + "-" + ProcessHandle.current().pid()
        : podName;
  }

  /** The driver root as the plugin sees it and as the host does. */
  public DriverRoot driverRoots() {
    return new DriverRoot(
        Path.of(driverRoot),
        Path.of(hostDriverRoot == null || hostDriverRoot.isBlank() ? driverRoot : hostDriverRoot));
  }

  public Path pluginDir() {
    return Path.of(pluginsDir, driverName);
  }

  public Path draSocket() {
    return pluginDir().resolve(instanced() ? "dra-" + instanceTag(instance) + ".sock" : "dra.sock");
  }

  public Path registrationSocket() {
    return Path.of(
        registryDir, driverName + (instanced() ? "-" + instanceTag(instance) : "") + "-reg.sock");
  }

  private boolean instanced() {
    return instance != null && !instance.isBlank();
  }

  /**
   * The instance as it appears in socket names: 8 hex digits of its SHA-256. A pod UID in full
   * would push a socket path past the kernel's 108 bytes; a prefix of a pod name would collide.
   */
  public static String instanceTag(String instance) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(instance.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  public Path dataDirectory() {
    return dataDir == null || dataDir.isBlank() ? pluginDir() : Path.of(dataDir);
  }

  public Path checkpointFile() {
    return dataDirectory().resolve("checkpoint.json");
  }

  /** Where each MPS control daemon gets its pipe, log and shared-memory directories. */
  public Path mpsDir() {
    return dataDirectory().resolve("mps");
  }
}
