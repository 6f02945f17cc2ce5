package dev.tessera.plugin.k8s;

import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.events.EventType;
import dev.tessera.api.events.InvolvedObject;
import dev.tessera.api.events.Occurrence;
import dev.tessera.plugin.claim.ClaimEvent;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.prepare.ClaimEvents;

/**
 * A claim's events as core v1 Events on its ResourceClaim, through the shared recorder: queued
 * here, correlated, rate limited and written on the recorder's own thread.
 */
public final class ClaimEventRecorder implements ClaimEvents {
  private final EventRecorder recorder;

  public ClaimEventRecorder(EventRecorder recorder) {
    this.recorder = recorder;
  }

  @Override
  public void record(ClaimRef claim, ClaimEvent event) {
    recorder.record(
        new Occurrence(
            InvolvedObject.resourceClaim(claim.namespace(), claim.name(), claim.uid()),
            event.warning() ? EventType.WARNING : EventType.NORMAL,
            event.reason(),
            event.message()));
  }
}
