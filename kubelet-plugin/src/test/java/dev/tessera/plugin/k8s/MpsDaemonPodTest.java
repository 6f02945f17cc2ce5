package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsPaths;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MpsDaemonPodTest {
  private static final MpsPaths PATHS = new MpsPaths(Path.of("/var/lib/kubelet/plugins/t/mps"));
  private static final DriverTools.Command DAEMON =
      new DriverTools.Command(
          List.of("/driver-root/usr/bin/nvidia-cuda-mps-control", "-f"), PATHS.daemonEnv("GPU-1"));

  private static MpsDaemonPod pods(String node, boolean privileged) {
    return new MpsDaemonPod(
        "tessera-system",
        node,
        "registry/plugin:1",
        "IfNotPresent",
        privileged,
        "/run/nvidia/driver",
        "/driver-root",
        true,
        "system-node-critical");
  }

  @Test
  void aDaemonsPodIsBoundToTheNodeAndRunsTheDaemonInTheForegroundWithItsDirs() {
    Pod pod = pods("node-a", true).build("GPU-1", DAEMON, PATHS);

    assertThat(pod.getMetadata().getNamespace()).isEqualTo("tessera-system");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry(MpsDaemonPod.NAME_LABEL, MpsDaemonPod.NAME)
        .containsEntry(MpsDaemonPod.DEVICE_LABEL, "GPU-1");
    var spec = pod.getSpec();
    assertThat(spec.getNodeName()).isEqualTo("node-a");
    assertThat(spec.getRestartPolicy()).isEqualTo("OnFailure");
    assertThat(spec.getAutomountServiceAccountToken()).isFalse();
    assertThat(spec.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(spec.getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getOperator()).isEqualTo("Exists"));
    var container = spec.getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("registry/plugin:1");
    assertThat(container.getCommand()).isEqualTo(DAEMON.argv());
    assertThat(
            container.getEnv().stream()
                .collect(Collectors.toMap(e -> e.getName(), e -> e.getValue())))
        .isEqualTo(PATHS.daemonEnv("GPU-1"));
    assertThat(container.getSecurityContext().getPrivileged()).isTrue();
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();

    Map<String, String> hostPaths =
        spec.getVolumes().stream()
            .collect(Collectors.toMap(Volume::getName, v -> v.getHostPath().getPath()));
    Map<String, String> mounts =
        container.getVolumeMounts().stream()
            .collect(Collectors.toMap(VolumeMount::getName, VolumeMount::getMountPath));
    // The host's driver root where the plugin sees it, so the plugin's command line holds here.
    assertThat(hostPaths).containsEntry("driver-root", "/run/nvidia/driver");
    assertThat(mounts).containsEntry("driver-root", "/driver-root");
    // The device's pipe and log dirs at their host paths (the plugin and the claims see the same).
    assertThat(hostPaths).containsEntry("mps", PATHS.deviceDir("GPU-1").toString());
    assertThat(mounts).containsEntry("mps", PATHS.deviceDir("GPU-1").toString());
    // Its /dev/shm is the dir the claims' containers get as theirs.
    assertThat(hostPaths).containsEntry("shm", PATHS.shmDir("GPU-1").toString());
    assertThat(mounts).containsEntry("shm", "/dev/shm");
  }

  @Test
  void unprivilegedItDropsEveryCapability() {
    var context =
        pods("node-a", false)
            .build("GPU-1", DAEMON, PATHS)
            .getSpec()
            .getContainers()
            .get(0)
            .getSecurityContext();

    assertThat(context.getPrivileged()).isFalse();
    assertThat(context.getAllowPrivilegeEscalation()).isFalse();
    assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(context.getCapabilities().getAdd()).isNullOrEmpty();
  }

  @Test
  void theNameIsStablePerNodeAndDeviceAndFitsAPodName() {
    var a = pods("node-a", true);

    assertThat(a.name("GPU-1")).isEqualTo(pods("node-a", false).name("GPU-1"));
    assertThat(a.name("GPU-1")).isNotEqualTo(a.name("GPU-2"));
    assertThat(a.name("GPU-1")).isNotEqualTo(pods("node-b", true).name("GPU-1"));
    assertThat(a.name("MIG-" + "f".repeat(36))).matches("[a-z0-9-]{1,63}");
    assertThat(a.build("GPU-1", DAEMON, PATHS).getMetadata().getName()).isEqualTo(a.name("GPU-1"));
  }
}
