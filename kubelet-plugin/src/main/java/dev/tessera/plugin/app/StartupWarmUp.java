package dev.tessera.plugin.app;

import java.util.concurrent.CompletionStage;

/**
 * Work the plugin does once at start-up so that the kubelet's first claim does not pay for it (the
 * API client's first connection, with its TLS handshake; the serializers a prepare builds on first
 * use). The plugin offers itself for registration when it is done.
 */
public interface StartupWarmUp {
  /** Completes when the warm-up has ended, whether it succeeded or not; never exceptionally. */
  CompletionStage<Void> done();
}
