package dev.tessera.cli.core;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

/** A claim by namespace and name, printed {@code namespace/name} as kubectl does. */
public record ClaimRef(String namespace, String name) {
  public static ClaimRef of(ResourceClaim claim) {
    return new ClaimRef(claim.getMetadata().getNamespace(), claim.getMetadata().getName());
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
