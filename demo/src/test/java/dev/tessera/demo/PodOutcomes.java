package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a pod that does not run says why, where a user looks: "clear" is a {@code PodScheduled}
 * condition that is false with the scheduler's message, or a Warning Event {@code PrepareFailed} on
 * one of its claims (the plugin's reason, on the claim it names) with a message.
 */
final class PodOutcomes {
  private PodOutcomes() {}

  static boolean running(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Running".equals(phase) || "Succeeded".equals(phase);
  }

  /** The pods of {@code pods} that neither run nor say clearly why, each with what it shows. */
  static List<String> unclear(KubernetesClient client, List<Pod> pods) {
    var found = new ArrayList<String>();
    for (Pod pod : pods) {
      if (running(pod) || unschedulableSaysWhy(pod) || prepareFailureSaysWhy(client, pod)) {
        continue;
      }
      found.add(
          "pod %s/%s is %s with no clear reason (conditions %s)"
              .formatted(
                  pod.getMetadata().getNamespace(),
                  pod.getMetadata().getName(),
                  pod.getStatus() == null ? "without status" : pod.getStatus().getPhase(),
                  pod.getStatus() == null ? List.of() : pod.getStatus().getConditions()));
    }
    return found;
  }

  private static boolean unschedulableSaysWhy(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(
                c ->
                    "PodScheduled".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && c.getMessage() != null
                        && !c.getMessage().isBlank());
  }

  private static boolean prepareFailureSaysWhy(KubernetesClient client, Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null) {
      return false;
    }
    String namespace = pod.getMetadata().getNamespace();
    for (var status : pod.getStatus().getResourceClaimStatuses()) {
      var claim =
          client
              .dynamicResourceAllocation()
              .v1()
              .resourceClaims()
              .inNamespace(namespace)
              .withName(status.getResourceClaimName())
              .get();
      if (claim == null) {
        continue;
      }
      boolean said =
          client.v1().events().inNamespace(namespace).list().getItems().stream()
              .anyMatch(
                  e ->
                      "PrepareFailed".equals(e.getReason())
                          && "Warning".equals(e.getType())
                          && claim.getMetadata().getUid().equals(e.getInvolvedObject().getUid())
                          && e.getMessage() != null
                          && !e.getMessage().isBlank());
      if (said) {
        return true;
      }
    }
    return false;
  }
}
