package dev.tessera.plugin.app;

/** Where errors go that the plugin cannot continue after (such as the kubelet rejecting it). */
public interface FatalErrors {
  void fatal(String reason);
}
