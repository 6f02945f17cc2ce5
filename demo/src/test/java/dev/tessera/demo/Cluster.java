package dev.tessera.demo;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A cluster the end-to-end tests run on: the local cluster from upstream binaries ({@link
 * LocalBinaryCluster}), whose one node Tessera runs on as host processes, or kind through
 * Testcontainers ({@link KindCluster}) where a Docker engine exists, for the tests that need only
 * the API server. {@link Clusters} picks one.
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

  /** A client with the cluster's admin kubeconfig; the caller closes it. */
  default KubernetesClient adminClient() throws IOException {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(adminKubeconfig())))
        .build();
  }
}
