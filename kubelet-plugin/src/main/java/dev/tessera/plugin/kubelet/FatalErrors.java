package dev.tessera.plugin.kubelet;

/** Where errors go that the plugin cannot continue after (such as the kubelet rejecting it). */
public interface FatalErrors {
  void fatal(String reason);
}
