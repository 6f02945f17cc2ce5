package dev.tessera.api.events;

import java.util.Objects;

/**
 * The object an Event is about, as core v1's {@code involvedObject} names it.
 *
 * @param namespace empty for a cluster-scoped object (a GpuNode)
 */
public record InvolvedObject(
    String apiVersion, String kind, String namespace, String name, String uid) {
  /**
   * Where a cluster-scoped object's Events live: {@code default}, as client-go's recorder puts a
   * Node's. kubectl finds them there ({@code describe} of a cluster-scoped object searches every
   * namespace by the object's name and UID).
   */
  public static final String CLUSTER_EVENTS_NAMESPACE = "default";

  public InvolvedObject {
    Objects.requireNonNull(apiVersion, "apiVersion");
    Objects.requireNonNull(kind, "kind");
    namespace = namespace == null ? "" : namespace;
    Objects.requireNonNull(name, "name");
    uid = uid == null ? "" : uid;
  }

  /** A ResourceClaim ({@code resource.k8s.io/v1}). */
  public static InvolvedObject resourceClaim(String namespace, String name, String uid) {
    return new InvolvedObject("resource.k8s.io/v1", "ResourceClaim", namespace, name, uid);
  }

  /** The namespace the object's Events are written in. */
  public String eventNamespace() {
    return namespace.isEmpty() ? CLUSTER_EVENTS_NAMESPACE : namespace;
  }
}
