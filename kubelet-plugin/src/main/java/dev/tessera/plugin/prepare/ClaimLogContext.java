package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.ClaimRef;
import org.slf4j.MDC;

/** Puts the claim's identity on every log line written while it is being worked on. */
record ClaimLogContext(ClaimRef ref) implements AutoCloseable {
  static ClaimLogContext of(ClaimRef ref) {
    MDC.put("claim.uid", ref.uid());
    MDC.put("claim.namespace", ref.namespace());
    MDC.put("claim.name", ref.name());
    return new ClaimLogContext(ref);
  }

  @Override
  public void close() {
    MDC.remove("claim.uid");
    MDC.remove("claim.namespace");
    MDC.remove("claim.name");
  }
}
