package dev.tessera.plugin.claim;

/** The two phases of a prepare: device work may be half done until the claim is completed. */
public enum ClaimState {
  PrepareStarted,
  PrepareCompleted
}
