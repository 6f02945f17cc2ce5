package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.ClaimEvent;
import dev.tessera.plugin.claim.ClaimRef;

/**
 * Where prepare tells what it did to a person: Events on the claim. Never blocks and never throws
 * (the adapter queues them for its own thread), so a prepare never waits or fails for one.
 */
public interface ClaimEvents {
  void record(ClaimRef claim, ClaimEvent event);
}
