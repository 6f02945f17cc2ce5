package dev.tessera.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cluster hack/cluster/up brings up: its state dir ({@code TESSERA_CLUSTER_DIR}, default
 * /var/lib/tessera-cluster) holds the admin kubeconfig and an {@code env} file with the node name
 * and the kubelet's dirs.
 */
final class LocalBinaryCluster implements Cluster {
  private final Path state;

  LocalBinaryCluster(Path state) {
    this.state = state;
  }

  static LocalBinaryCluster fromEnvironment() {
    String dir = System.getenv().getOrDefault("TESSERA_CLUSTER_DIR", "/var/lib/tessera-cluster");
    return new LocalBinaryCluster(Path.of(dir));
  }

  @Override
  public Optional<String> unavailableReason() {
    if (!Files.exists(adminKubeconfig()) || !Files.exists(state.resolve("env"))) {
      return Optional.of(
          "no local cluster at " + state + ": run hack/cluster/build and hack/cluster/up");
    }
    return Optional.empty();
  }

  @Override
  public Path adminKubeconfig() {
    return state.resolve("admin.kubeconfig");
  }

  @Override
  public String nodeName() {
    return envValue("TESSERA_NODE_NAME");
  }

  @Override
  public Path registryDir() {
    return Path.of(envValue("TESSERA_REGISTRY_DIR"));
  }

  @Override
  public Path pluginsDir() {
    return Path.of(envValue("TESSERA_PLUGINS_DIR"));
  }

  @Override
  public String hostNetworkAddress() {
    return envValue("TESSERA_HOST_NETWORK_IP");
  }

  @Override
  public Path cdiDir() {
    return Path.of(envValue("TESSERA_CDI_DIR"));
  }

  /** {@code hack/cluster/install-tessera} (the README's quickstart), the images imported by it. */
  @Override
  public ProcessBuilder installCommand(Path driverRoot, Path images, List<String> helmArgs) {
    var command =
        new ArrayList<>(
            List.of(
                TesseraOnNode.repoFile("hack/cluster/install-tessera").toString(),
                "--driver-root",
                driverRoot.toString()));
    command.addAll(helmArgs);
    var builder = new ProcessBuilder(command);
    builder.environment().put("TESSERA_IMAGES", images.toString());
    builder.environment().put("TESSERA_CLUSTER_DIR", state.toString());
    return builder;
  }

  @Override
  public Optional<ClusterComponents> components() {
    return Optional.of(new ClusterComponents(state));
  }

  private String envValue(String name) {
    try {
      Matcher m =
          Pattern.compile("(?m)^export " + name + "=(\\S+)$")
              .matcher(Files.readString(state.resolve("env")));
      if (!m.find()) {
        throw new IllegalStateException(name + " is not in " + state.resolve("env"));
      }
      return m.group(1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
