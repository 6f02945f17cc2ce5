package dev.tessera.plugin.kubelet;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.kubelet.ClaimBatch.Outcome;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What both DRA API versions do with a call: the kubelet's claims to {@link ClaimRef}s, the batch,
 * and each claim's outcome to its reply. The versions' messages differ only in their Java package
 * (and v1's share ID), so each service says how its messages are built ({@link Messages}) and this
 * does the rest.
 */
final class DraTranslation {
  private final ClaimBatch batch;

  DraTranslation(ClaimBatch batch) {
    this.batch = batch;
  }

  /**
   * How one API version reads a claim and builds its per-claim replies.
   *
   * @param <C> the version's {@code Claim}
   * @param <P> its {@code NodePrepareResourceResponse}
   * @param <U> its {@code NodeUnprepareResourceResponse}
   */
  interface Messages<C, P, U> {
    ClaimRef ref(C claim);

    /** A prepared claim's reply with its devices (none for a claim with nothing to prepare). */
    P prepared(List<PreparedDevice> devices);

    P prepareFailed(String error);

    /** An unprepare's reply; {@code error} is empty when it succeeded. */
    U unprepared(String error);
  }

  /** Each claim's prepare reply, by claim UID, in the kubelet's order. */
  <C, P, U> Map<String, P> prepare(List<C> claims, Messages<C, P, U> messages) {
    var replies = new LinkedHashMap<String, P>();
    batch
        .prepare(refs(claims, messages))
        .forEach(
            (uid, outcome) ->
                replies.put(
                    uid,
                    switch (outcome) {
                      case Outcome.Prepared p -> messages.prepared(p.devices());
                      case Outcome.Failed f -> messages.prepareFailed(f.error());
                      case Outcome.Done d -> messages.prepared(List.of());
                    }));
    return replies;
  }

  /** Each claim's unprepare reply, by claim UID, in the kubelet's order. */
  <C, P, U> Map<String, U> unprepare(List<C> claims, Messages<C, P, U> messages) {
    var replies = new LinkedHashMap<String, U>();
    batch
        .unprepare(refs(claims, messages))
        .forEach(
            (uid, outcome) ->
                replies.put(
                    uid,
                    messages.unprepared(outcome instanceof Outcome.Failed f ? f.error() : "")));
    return replies;
  }

  private static <C> List<ClaimRef> refs(List<C> claims, Messages<C, ?, ?> messages) {
    return claims.stream().map(messages::ref).toList();
  }
}
