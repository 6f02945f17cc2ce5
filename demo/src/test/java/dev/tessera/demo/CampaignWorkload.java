package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * One claim of the crash campaign and its pods, named {@code name} (the pods {@code name-a}, {@code
 * name-b}): created and deleted as a user does, with {@code kubectl apply} and {@code delete}.
 */
record CampaignWorkload(String name, ClaimKind kind) {

  List<String> podNames() {
    return IntStream.range(0, kind.pods).mapToObj(i -> name + "-" + (char) ('a' + i)).toList();
  }

  /** How many ResourceClaims it makes: its own, or one per pod from the template. */
  int claims() {
    return kind.template() == null ? 1 : kind.pods;
  }

  void create(KubernetesClient client) {
    if (kind.template() == null) {
      client.resource(kind.claimYaml(name)).create();
    }
    for (String pod : podNames()) {
      client.resource(kind.podYaml(pod, name)).create();
    }
  }

  void delete(KubernetesClient client) {
    for (String pod : podNames()) {
      client.pods().inNamespace(kind.namespace()).withName(pod).withGracePeriod(1).delete();
    }
    if (kind.template() == null) {
      claim(client).delete();
    }
  }

  /** Its pods the API server has. */
  List<Pod> pods(KubernetesClient client) {
    return podNames().stream()
        .map(p -> client.pods().inNamespace(kind.namespace()).withName(p).get())
        .filter(Objects::nonNull)
        .toList();
  }

  /** Gone from the API server: its pods and its claims (a template's go with their pod). */
  boolean gone(KubernetesClient client) {
    return pods(client).isEmpty()
        && client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace(kind.namespace())
            .list()
            .getItems()
            .stream()
            .map(c -> c.getMetadata().getName())
            .noneMatch(n -> n.equals(name) || n.startsWith(name + "-"));
  }

  private io.fabric8.kubernetes.client.dsl.Resource<
          io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim>
      claim(KubernetesClient client) {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(kind.namespace())
        .withName(name);
  }
}
