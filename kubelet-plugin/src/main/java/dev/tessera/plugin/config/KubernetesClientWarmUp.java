package dev.tessera.plugin.config;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Parallel;

/**
 * Builds the Kubernetes client on a thread of its own at start-up: it takes a few hundred
 * milliseconds of class loading that the kubelet registration need not wait for. A client that
 * cannot be built still fails the start-up.
 */
@Context
@Parallel
public class KubernetesClientWarmUp {
  public KubernetesClientWarmUp(KubernetesClient client) {
    client.getConfiguration();
  }
}
