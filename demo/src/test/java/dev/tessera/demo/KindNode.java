package dev.tessera.demo;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * One kind node started through Testcontainers: the node image (Tessera's, built offline by {@code
 * hack/kind/node-image}, or kind's own) run as kind runs it — privileged, a private cgroup
 * namespace, tmpfs {@code /run} and {@code /tmp}, a volume for {@code /var}, {@code /lib/modules}
 * read-only — then {@code kubeadm init} with Tessera's config ({@code kind/kubeadm.yaml}) and the
 * control-plane taint removed, so it is a one-node cluster that runs pods. Host directories are
 * mounted into it: the shared one at its own path (the tests' simulated driver roots), and those
 * the tests read on the node (CDI specs, the plugin's dir with its checkpoint, the plugin
 * registry).
 *
 * <p>Not kindcontainer: its kubeadm configs are v1beta3, which kubeadm 1.37 refuses.
 */
final class KindNode extends GenericContainer<KindNode> {
  private static final int API_PORT = 6443;
  // What kind's node entrypoint prints once its cgroup set-up is done (cgroup v1), or systemd once
  // booted (cgroup v2): only then may anything exec into the node.
  private static final String BOOTED =
      ".*(detected cgroup v1|Reached target .*Multi-User System).*";

  private final String nodeName;
  private final String kubernetesVersion;

  KindNode(String image, String nodeName, String kubernetesVersion, Map<Path, String> mounts) {
    super(DockerImageName.parse(image));
    this.nodeName = nodeName;
    this.kubernetesVersion = kubernetesVersion;
    withPrivilegedMode(true);
    withTmpFs(Map.of("/run", "rw", "/tmp", "rw"));
    withEnv("container", "docker");
    withExposedPorts(API_PORT);
    withStartupTimeout(Duration.ofMinutes(2));
    waitingFor(Wait.forLogMessage(BOOTED, 1).withStartupTimeout(Duration.ofMinutes(2)));
    withCreateContainerCmdModifier(
        cmd -> {
          var binds = new ArrayList<Bind>();
          binds.add(new Bind("/lib/modules", new Volume("/lib/modules"), AccessMode.ro));
          mounts.forEach(
              (host, inNode) -> binds.add(new Bind(host.toString(), new Volume(inNode))));
          var volumes = new ArrayList<Volume>();
          volumes.add(new Volume("/var"));
          binds.forEach(b -> volumes.add(b.getVolume()));
          cmd.withHostName(nodeName).withVolumes(volumes);
          cmd.getHostConfig().withBinds(binds).withCgroupnsMode("private");
        });
  }

  /** kubeadm init, the taint off: after this the node runs pods. */
  @Override
  protected void containerIsStarted(InspectContainerResponse info) {
    try {
      String ip = nodeIp();
      String config =
          resource("kind/kubeadm.yaml")
              .replace("@NAME@", nodeName)
              .replace("@IP@", ip)
              .replace("@VERSION@", kubernetesVersion);
      copyFileToContainer(
          Transferable.of(config.getBytes(StandardCharsets.UTF_8)), "/kind/kubeadm.conf");
      run("kubeadm", "init", "--config=/kind/kubeadm.conf", "--skip-token-print");
      run(
          "kubectl",
          "--kubeconfig=/etc/kubernetes/admin.conf",
          "taint",
          "nodes",
          "--all",
          "node-role.kubernetes.io/control-plane-");
    } catch (IOException e) {
      throw new IllegalStateException("kubeadm init of the kind node failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The node's address on the engine's network, where the API server listens. */
  String nodeIp() {
    return getContainerInfo()
        .getNetworkSettings()
        .getNetworks()
        .values()
        .iterator()
        .next()
        .getIpAddress();
  }

  /**
   * The admin kubeconfig, naming the API server at the node's address (this host reaches the
   * engine's network directly; no port mapping needed).
   */
  String adminKubeconfig() {
    return copyFileFromContainer(
        "/etc/kubernetes/admin.conf", in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
  }

  /** Imports an OCI image archive into the node's containerd, as {@code kind load} does. */
  void load(Path archive) throws IOException, InterruptedException {
    String inNode = "/kind/load/" + archive.getFileName();
    copyFileToContainer(MountableFile.forHostPath(archive.toRealPath()), inNode);
    run("ctr", "--namespace=k8s.io", "images", "import", "--local", inNode);
    run("rm", "-f", inNode);
  }

  /** Runs a command in the node; fails with its output unless it exits 0. */
  String run(String... command) throws IOException, InterruptedException {
    ExecResult result = execInContainer(command);
    if (result.getExitCode() != 0) {
      throw new IOException(
          String.join(" ", command)
              + " in the kind node exited "
              + result.getExitCode()
              + ":\n"
              + result.getStdout()
              + result.getStderr());
    }
    return result.getStdout();
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = KindNode.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("no resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The directories of {@code mounts} exist before the engine binds them. */
  static Map<Path, String> made(Map<Path, String> mounts) throws IOException {
    for (Path host : mounts.keySet()) {
      Files.createDirectories(host);
    }
    return mounts;
  }
}
