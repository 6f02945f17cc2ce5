package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hack/cluster/install-tessera}, Tessera into the local cluster in one command, against
 * stand-ins for ctr, kubectl and Helm and a cluster dir of its own: it imports both images, lays
 * out the simulated node and installs with the values the local cluster needs — the ones {@link
 * TesseraRelease} proves on the real cluster.
 */
class InstallTesseraScriptIT {
  private static final Path SCRIPT = HelmChart.REPO.resolve("hack/cluster/install-tessera");

  @TempDir Path work;
  private StandIns standIns;
  private Path cluster;
  private Map<String, String> env;

  @BeforeEach
  void aClusterDir() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")), "install-tessera runs as root");
    standIns = new StandIns(work);
    standIns.add("ctr", "");
    standIns.add("kubectl", "echo resourceslice.resource.k8s.io/tessera-node-gpu.tessera.dev-0");
    standIns.add("helm", "");
    // The driver root sits on a private mount here: the script makes it a shared one (recorded, not
    // done: a test must not leave mounts behind).
    standIns.add("findmnt", "echo private");
    standIns.add("mount", "");
    standIns.add("mountpoint", "exit 0");
    standIns.add("umount", "");
    cluster = Files.createDirectories(work.resolve("cluster"));
    // What hack/cluster/up writes, less the PATH of its binaries (the stand-ins are first).
    Files.writeString(
        cluster.resolve("env"),
        """
        export KUBECONFIG=%1$s/admin.kubeconfig
        export CONTAINERD_ADDRESS=/run/tessera-containerd/containerd.sock CONTAINERD_NAMESPACE=k8s.io
        export TESSERA_NODE_NAME=tessera-node
        export TESSERA_REGISTRY_DIR=%1$s/kubelet/plugins_registry
        export TESSERA_PLUGINS_DIR=%1$s/kubelet/plugins
        export TESSERA_CDI_DIR=/var/run/cdi
        export TESSERA_HOST_NETWORK_IP=10.250.0.2
        """
            .formatted(cluster));
    Path images = Files.createDirectories(work.resolve("images"));
    for (String image : List.of("kubelet-plugin", "controller")) {
      Files.writeString(images.resolve(image + ".oci.tar"), "an OCI archive of " + image);
    }
    env =
        Map.of(
            "TESSERA_CLUSTER_DIR", cluster.toString(),
            "TESSERA_IMAGES", images.toString(),
            "TESSERA_HELM", standIns.bin().resolve("helm").toString());
  }

  @Test
  void importsTheImagesLaysOutTheNodeAndInstallsWithTheLocalClustersValues() throws Exception {
    var result = standIns.run(SCRIPT, System.getenv("PATH"), env);
    assertThat(result.exitCode()).as(result.errors()).isZero();

    Path dir = cluster.resolve("tessera");
    assertThat(standIns.calls("ctr"))
        .containsExactly(
            "ctr images import --local " + dir.resolve("images/kubelet-plugin.oci.tar"),
            "ctr images import --local " + dir.resolve("images/controller.oci.tar"));
    assertThat(Files.readString(dir.resolve("driver-root/etc/mock-nvml/config")))
        .contains("profile=H100-SXM5-80GB", "gpus=4", "seed=tessera-node");
    var helm = standIns.calls("helm");
    assertThat(helm).hasSize(1);
    assertThat(helm.get(0))
        .startsWith(
            "helm upgrade --install tessera "
                + HelmChart.CHART
                + " -n tessera-system --create-namespace --kubeconfig "
                + cluster.resolve("admin.kubeconfig"))
        .contains(
            "--set plugin.image.pullPolicy=Never",
            "--set controller.image.pullPolicy=Never",
            "--set plugin.kubeletRootDir=" + cluster.resolve("kubelet"),
            "--set plugin.cdiDir=/var/run/cdi",
            "--set plugin.driverRoot=" + dir.resolve("driver-root"),
            "--set plugin.driverRootWritable=true",
            "--set plugin.privileged=false",
            "--set hostNetwork=true",
            "--set readinessProbes=false",
            "--set apiServer.host=10.250.0.1",
            "--set apiServer.port=6443",
            "--set controller.replicas=1",
            "--set webhook.url=https://10.250.0.2:8443/validate");
    assertThat(standIns.calls("kubectl"))
        .first()
        .asString()
        .contains("get resourceslices", "spec.nodeName=tessera-node");
    Path root = dir.resolve("driver-root");
    assertThat(standIns.calls("mount"))
        .containsExactly("mount --bind " + root + " " + root, "mount --make-shared " + root);

    var uninstall = standIns.run(SCRIPT, System.getenv("PATH"), env, "--uninstall");
    assertThat(uninstall.exitCode()).as(uninstall.errors()).isZero();
    assertThat(standIns.calls("helm"))
        .last()
        .isEqualTo(
            "helm uninstall tessera -n tessera-system --kubeconfig "
                + cluster.resolve("admin.kubeconfig")
                + " --wait");
    assertThat(standIns.calls("umount")).containsExactly("umount " + root);
    assertThat(dir).doesNotExist();
  }

  @Test
  void aDriverRootLaidOutAlreadyAndMoreHelmValuesAsTheE2eTierInstallsIt() throws Exception {
    Path root = Files.createDirectories(work.resolve("sim-root"));
    var result =
        standIns.run(
            SCRIPT,
            System.getenv("PATH"),
            env,
            "--driver-root",
            root.toString(),
            "--set",
            "plugin.leaseDuration=4s");
    assertThat(result.exitCode()).as(result.errors()).isZero();

    // That root, not one laid out by the script; the extra values last, so they win.
    assertThat(cluster.resolve("tessera/driver-root")).doesNotExist();
    assertThat(standIns.calls("helm"))
        .singleElement()
        .asString()
        .contains("--set plugin.driverRoot=" + root + " ")
        .endsWith(
            "--set webhook.url=https://10.250.0.2:8443/validate --set plugin.leaseDuration=4s");

    var missing =
        standIns.run(SCRIPT, System.getenv("PATH"), env, "--driver-root", work + "/nowhere");
    assertThat(missing.exitCode()).isNotZero();
    assertThat(missing.errors()).contains("--driver-root needs an existing directory");
  }

  @Test
  void withoutARunningClusterItSaysToBringOneUp() throws Exception {
    Files.delete(cluster.resolve("env"));
    var result = standIns.run(SCRIPT, System.getenv("PATH"), env);
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.errors()).contains("the local cluster is not up", "hack/cluster/up first");
    assertThat(standIns.calls()).isEmpty();
  }

  @Test
  void theScriptIsShellcheckClean() throws Exception {
    ShellCheck.assertClean(SCRIPT);
  }
}
