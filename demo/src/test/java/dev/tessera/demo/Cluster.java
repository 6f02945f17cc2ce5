package dev.tessera.demo;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A cluster the end-to-end tests run on: the local cluster from upstream binaries ({@link
 * LocalBinaryCluster}), whose one node Tessera runs on with its Helm chart or as host processes, or
 * kind through Testcontainers ({@link KindCluster}) on Docker or podman, where it runs with its
 * chart. {@link Clusters} picks one.
 */
interface Cluster {

  /** Why the tests cannot run on it here, or empty when they can. */
  Optional<String> unavailableReason();

  Path adminKubeconfig();

  String nodeName();

  /** The kubelet's plugin registry, where the plugin's registration socket goes. */
  Path registryDir();

  /** The kubelet's plugins dir, where the plugin's DRA socket and checkpoint go. */
  Path pluginsDir();

  /** The CDI dir the node's container runtime reads. */
  Path cdiDir();

  /**
   * Where the API server reaches a pod on the node's host network (a webhook served by such a pod
   * is called at this address).
   */
  String hostNetworkAddress();

  /**
   * Whether this host reaches pods on the node's host network at {@link #hostNetworkAddress()} (the
   * local cluster); kind's pods live on a network inside its node.
   */
  default boolean podsReachableFromHere() {
    return true;
  }

  /**
   * A new directory for one test's files (its simulated driver root): where the node sees it at the
   * same path.
   */
  default Path newWorkDir() throws IOException {
    return Files.createTempDirectory("tessera-e2e");
  }

  /**
   * The command that installs Tessera's Helm chart here on {@code driverRoot}, from the image
   * archives in {@code images}, with {@code helmArgs} after its own values; it waits until the
   * node's GPUs are published.
   */
  ProcessBuilder installCommand(Path driverRoot, Path images, List<String> helmArgs)
      throws IOException, InterruptedException;

  /**
   * The cluster's own processes (API server, kubelet, ...), to stop and start as an outage would;
   * empty where they do not run as processes of this host (kind).
   */
  default Optional<ClusterComponents> components() {
    return Optional.empty();
  }

  /** A client with the cluster's admin kubeconfig; the caller closes it. */
  default KubernetesClient adminClient() throws IOException {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(adminKubeconfig())))
        .build();
  }
}
