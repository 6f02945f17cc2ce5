package dev.tessera.demo;

import dev.tessera.plugin.it.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.testcontainers.DockerClientFactory;

/**
 * A one-node kind cluster started through Testcontainers ({@link KindNode}) on the engine that
 * speaks Docker's API here: Docker's daemon, or podman's API socket ({@code DOCKER_HOST}, Ryuk off:
 * its image cannot be pulled without a registry). Tessera is installed into it with its Helm chart
 * ({@code hack/kind/install-tessera}, as {@code hack/kind/up} does); the directories the tests read
 * on the node (CDI specs, the plugin's dir, the registry) and the tests' simulated driver roots are
 * host directories mounted into the node, so every scenario test runs here as on the local cluster.
 *
 * <p>Chosen with {@code -Dtessera.e2e.cluster=kind} (or {@code TESSERA_E2E_CLUSTER=kind}); started
 * on first use, stopped when the JVM ends.
 */
final class KindCluster implements Cluster {
  static final String NODE = "tessera-kind-tc";
  private static final Path REPO = HelmChart.REPO;

  private final String image;
  private final String kubernetesVersion;
  private KindNode node;
  private Path shared;
  private Path kubeconfig;

  KindCluster() {
    this.kubernetesVersion = "v" + version("KIND_KUBERNETES_VERSION");
    this.image =
        System.getenv()
            .getOrDefault("TESSERA_KIND_IMAGE", "localhost/tessera/kind-node:" + kubernetesVersion);
  }

  @Override
  public Optional<String> unavailableReason() {
    try {
      if (!DockerClientFactory.instance().isDockerAvailable()) {
        return Optional.of(
            "no container engine answers Docker's API (Docker's daemon, or podman's socket through"
                + " DOCKER_HOST), so no kind cluster through Testcontainers");
      }
      var images = DockerClientFactory.lazyClient().listImagesCmd().withImageNameFilter(image);
      if (images.exec().isEmpty()) {
        return Optional.of(
            "no node image " + image + " in the engine: hack/kind/node-image builds it");
      }
      return Optional.empty();
    } catch (RuntimeException | LinkageError e) {
      return Optional.of("no container engine for Testcontainers here: " + e.getMessage());
    }
  }

  /** Starts the node on first use (kubeadm init, busybox loaded). */
  private synchronized KindNode node() {
    if (node != null) {
      return node;
    }
    try {
      shared = Files.createDirectories(REPO.resolve("demo/target")).resolve("kind-tc");
      TestFiles.deleteTree(shared);
      var mounts = new LinkedHashMap<Path, String>();
      mounts.put(shared.resolve("roots"), shared.resolve("roots").toString());
      mounts.put(shared.resolve("cdi"), "/var/run/cdi");
      mounts.put(shared.resolve("plugins"), "/var/lib/kubelet/plugins");
      mounts.put(shared.resolve("plugins_registry"), "/var/lib/kubelet/plugins_registry");
      var started = new KindNode(image, NODE, kubernetesVersion, KindNode.made(mounts));
      started.withLabel("dev.tessera.kind-node", "e2e");
      started.start();
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "kind-node-stop"));
      node = started;
      kubeconfig = shared.resolve("admin.kubeconfig");
      Files.writeString(kubeconfig, started.adminKubeconfig());
      started.load(busybox());
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public Path adminKubeconfig() {
    node();
    return kubeconfig;
  }

  @Override
  public String nodeName() {
    return NODE;
  }

  @Override
  public Path registryDir() {
    node();
    return shared.resolve("plugins_registry");
  }

  @Override
  public Path pluginsDir() {
    node();
    return shared.resolve("plugins");
  }

  @Override
  public Path cdiDir() {
    node();
    return shared.resolve("cdi");
  }

  @Override
  public String hostNetworkAddress() {
    return node().nodeIp();
  }

  /** The controller's pod is on the node's pod network, not its host network. */
  @Override
  public boolean podsReachableFromHere() {
    return false;
  }

  /** Under the shared directory, mounted into the node at the same path. */
  @Override
  public Path newWorkDir() throws IOException {
    node();
    return Files.createTempDirectory(shared.resolve("roots"), "tessera-e2e");
  }

  /** The images loaded into the node, then {@code hack/kind/install-tessera}. */
  @Override
  public ProcessBuilder installCommand(Path driverRoot, Path images, List<String> helmArgs)
      throws IOException, InterruptedException {
    for (String name : List.of("kubelet-plugin", "controller")) {
      node().load(images.resolve(name + ".oci.tar"));
    }
    var command =
        new ArrayList<>(
            List.of(
                REPO.resolve("hack/kind/install-tessera").toString(),
                "--kubeconfig",
                adminKubeconfig().toString(),
                "--node",
                NODE,
                "--driver-root",
                driverRoot.toString()));
    command.addAll(helmArgs);
    return new ProcessBuilder(command);
  }

  /** The workload image the scenarios run: the local cluster's, else made like it. */
  private Path busybox() throws IOException, InterruptedException {
    Path out = shared.resolve("busybox.oci.tar");
    var make =
        new ProcessBuilder(
            "bash",
            "-c",
            ". hack/cluster/lib.sh && b=$(images_dir)/busybox.oci.tar"
                + " && if [ -f \"$b\" ]; then cp \"$b\" \"$1\"; else make_busybox_image \"$1\"; fi",
            "busybox",
            out.toString());
    make.directory(REPO.toFile()).inheritIO();
    Process p = make.start();
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("could not make the busybox image for the kind node");
    }
    return out;
  }

  /** A version pinned in hack/cluster/versions.env. */
  private static String version(String name) {
    try {
      Matcher m =
          Pattern.compile("(?m)^" + name + "=(\\S+)$")
              .matcher(Files.readString(REPO.resolve("hack/cluster/versions.env")));
      if (!m.find()) {
        throw new IllegalStateException(name + " is not in hack/cluster/versions.env");
      }
      return m.group(1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Its name in the tests' output. */
  @Override
  public String toString() {
    return "kind through Testcontainers (" + image + ")";
  }
}
