package dev.tessera.plugin.claim;

/** A claim as the kubelet names it. */
public record ClaimRef(String namespace, String name, String uid) {
  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
  }
}
