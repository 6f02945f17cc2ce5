package dev.tessera.demo;

import com.dajudge.kindcontainer.KindContainer;
import com.dajudge.kindcontainer.KindContainerVersion;
import com.dajudge.kindcontainer.KubernetesImageSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;

/**
 * A kind cluster through Testcontainers (kindcontainer), where a Docker engine exists. Its node is
 * a container, so Tessera cannot run on it as host processes: tests that need the node (the
 * plugin's sockets, the CDI dir) need Tessera deployed in the cluster (the Helm chart) and are not
 * offered this cluster; tests that need only the API server and scheduler are.
 */
final class KindCluster implements Cluster {
  /** The node image; a kindest/node of the Kubernetes version the project targets. */
  static final String IMAGE =
      System.getenv().getOrDefault("TESSERA_KIND_IMAGE", "kindest/node:v1.37.2");

  private KindContainer<?> kind;
  private Path kubeconfig;

  @Override
  public Optional<String> unavailableReason() {
    try {
      if (DockerClientFactory.instance().isDockerAvailable()) {
        return Optional.empty();
      }
    } catch (RuntimeException | LinkageError e) {
      // Testcontainers says why below.
    }
    return Optional.of("no Docker engine here, so no kind cluster through Testcontainers");
  }

  /** Starts the kind node on first use; it stops when the JVM ends (Testcontainers' reaper). */
  @Override
  public synchronized Path adminKubeconfig() {
    if (kind == null) {
      kind =
          new KindContainer<>(
              new KubernetesImageSpec<>(KindContainerVersion.VERSION_1_31_0).withImage(IMAGE));
      kind.start();
      try {
        kubeconfig = Files.createTempFile("tessera-kind", ".kubeconfig");
        Files.writeString(kubeconfig, kind.getKubeconfig());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return kubeconfig;
  }

  @Override
  public String nodeName() {
    throw onTheNode();
  }

  @Override
  public Path registryDir() {
    throw onTheNode();
  }

  @Override
  public Path pluginsDir() {
    throw onTheNode();
  }

  @Override
  public Path cdiDir() {
    throw onTheNode();
  }

  @Override
  public String hostNetworkAddress() {
    throw onTheNode();
  }

  private static UnsupportedOperationException onTheNode() {
    return new UnsupportedOperationException(
        "a kind node is a container: Tessera runs there only deployed in the cluster (Helm)");
  }
}
