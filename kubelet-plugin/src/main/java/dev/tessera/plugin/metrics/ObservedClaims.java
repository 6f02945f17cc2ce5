package dev.tessera.plugin.metrics;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.prepare.ClaimSource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Optional;

/**
 * The API server as prepare sees it, telling the metrics each claim prepare reads: its pods and
 * consumed memory come for free with the read prepare makes anyway, and cost the kubelet's path no
 * more than a map write.
 */
public final class ObservedClaims implements ClaimSource {
  private final ClaimSource delegate;
  private final ClaimDetailsBook book;

  public ObservedClaims(ClaimSource delegate, ClaimDetailsBook book) {
    this.delegate = delegate;
    this.book = book;
  }

  @Override
  public Optional<ResourceClaim> get(String namespace, String name) throws PrepareException {
    Optional<ResourceClaim> claim = delegate.get(namespace, name);
    try {
      claim.ifPresent(book::seen);
    } catch (RuntimeException e) {
      // Labels are not worth a failed prepare: the sampler reads the claim again later.
    }
    return claim;
  }

  @Override
  public void reportPrepared(ClaimRef claim, List<PreparedDevice> devices) {
    delegate.reportPrepared(claim, devices);
  }

  @Override
  public void clearPrepared(ClaimRef claim) {
    delegate.clearPrepared(claim);
  }
}
