package dev.tessera.api;

/**
 * The Lease a node plugin renews while it is alive and registered, one per node, named after it:
 * the plugin writes it, the controller reads a node's liveness from it.
 */
public final class NodeLeaseNames {
  public static final String PREFIX = "tessera-";

  private NodeLeaseNames() {}

  /** The Lease of the plugin on {@code nodeName}. */
  public static String forNode(String nodeName) {
    return PREFIX + nodeName;
  }

  /** The node whose Lease {@code leaseName} is, or {@code null} when it is no node's Lease. */
  public static String nodeOf(String leaseName) {
    return leaseName.startsWith(PREFIX) ? leaseName.substring(PREFIX.length()) : null;
  }
}
