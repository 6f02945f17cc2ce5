package dev.tessera.plugin.k8s;

import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsPaths;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pod an MPS control daemon runs in, on the plugin's node: it lives apart from the plugin's
 * pod, so the daemon and its clients outlive a plugin upgrade or crash. It mounts what the daemon
 * used in the plugin's pod at the same paths (the driver root, the device's pipe and log dirs,
 * {@code /dev}) and the device's shared-memory dir as its {@code /dev/shm}, which is the {@code
 * /dev/shm} the claims' containers get. It runs the daemon in the foreground ({@code -f}): the
 * container's life is the daemon's.
 *
 * @param namespace the release namespace
 * @param nodeName the plugin's node; the pod is bound to it directly, without the scheduler
 * @param image the plugin's own image: it has the shell and the loader the driver's tools need
 * @param privileged as the plugin: a real daemon opens the GPU's device nodes
 * @param hostDriverRoot the driver root on the host, mounted where the plugin mounts it
 * @param driverRoot where the plugin (and so the daemon's pod) sees the driver root
 * @param driverRootReadOnly as the plugin mounts it
 * @param priorityClassName the plugin's, so the daemon is not evicted before its clients; empty for
 *     none
 */
public record MpsDaemonPod(
    String namespace,
    String nodeName,
    String image,
    String pullPolicy,
    boolean privileged,
    String hostDriverRoot,
    String driverRoot,
    boolean driverRootReadOnly,
    String priorityClassName) {

  /** The label every daemon pod carries, and the admission policy checks. */
  public static final String NAME_LABEL = "app.kubernetes.io/name";

  public static final String NAME = "tessera-mps-control-daemon";
  public static final String DEVICE_LABEL = "gpu.tessera.dev/device-uuid";

  /**
   * The pod's name: the same for a device on a node after any restart, so a plugin finds the pod
   * again without listing pods; a hash, as UUIDs and node names together exceed a name's 63
   * characters.
   */
  public String name(String deviceUuid) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((nodeName + "/" + deviceUuid).getBytes(StandardCharsets.UTF_8));
      return "tessera-mps-" + HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The daemon's pod for the device, running {@code daemon} (the tool with {@code -f}). */
  public Pod build(String deviceUuid, DriverTools.Command daemon, MpsPaths paths) {
    var env = new ArrayList<EnvVar>();
    new TreeMap<>(daemon.env()).forEach((k, v) -> env.add(new EnvVar(k, v, null)));
    String deviceDir = paths.deviceDir(deviceUuid).toString();
    var volumes =
        List.of(
            hostPath("driver-root", hostDriverRoot),
            hostPath("mps", deviceDir),
            hostPath("shm", paths.shmDir(deviceUuid).toString()),
            hostPath("dev", "/dev"));
    var mounts =
        List.of(
            new VolumeMountBuilder()
                .withName("driver-root")
                .withMountPath(driverRoot)
                .withReadOnly(driverRootReadOnly)
                .withMountPropagation("HostToContainer")
                .build(),
            mount("mps", deviceDir),
            mount("dev", "/dev"),
            mount("shm", "/dev/shm"));
    return new PodBuilder()
        .withNewMetadata()
        .withName(name(deviceUuid))
        .withNamespace(namespace)
        .withLabels(
            Map.of(
                NAME_LABEL,
                NAME,
                "app.kubernetes.io/component",
                "mps",
                "app.kubernetes.io/managed-by",
                "tessera-kubelet-plugin",
                DEVICE_LABEL,
                deviceUuid))
        .endMetadata()
        .withNewSpec()
        .withNodeName(nodeName)
        // quit ends the daemon with 0 and the pod is done; a daemon that crashes is restarted.
        .withRestartPolicy("OnFailure")
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withTerminationGracePeriodSeconds(5L)
        .withPriorityClassName(priorityClassName.isBlank() ? null : priorityClassName)
        // Wherever the plugin runs, its daemons must run: the node's taints are the plugin's.
        .addNewToleration()
        .withOperator("Exists")
        .endToleration()
        .withNewSecurityContext()
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .addNewContainer()
        .withName("mps-control-daemon")
        .withImage(image)
        .withImagePullPolicy(pullPolicy)
        .withCommand(daemon.argv())
        .withEnv(env)
        .withSecurityContext(securityContext())
        .withVolumeMounts(mounts)
        .endContainer()
        .withVolumes(volumes)
        .endSpec()
        .build();
  }

  private SecurityContext securityContext() {
    var context = new SecurityContextBuilder().withReadOnlyRootFilesystem(true);
    if (privileged) {
      return context.withPrivileged(true).build();
    }
    return context
        .withPrivileged(false)
        .withAllowPrivilegeEscalation(false)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .build();
  }

  private static Volume hostPath(String name, String path) {
    return new VolumeBuilder()
        .withName(name)
        .withNewHostPath()
        .withPath(path)
        .withType("Directory")
        .endHostPath()
        .build();
  }

  private static VolumeMount mount(String name, String path) {
    return new VolumeMountBuilder().withName(name).withMountPath(path).build();
  }
}
