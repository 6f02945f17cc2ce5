package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedDevice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Claims in a map, and a record of what was reported; for unit tests of {@link DeviceState}. */
final class FakeClaimSource implements ClaimSource {
  final Map<String, ResourceClaim> claims = new HashMap<>();
  final Map<String, List<PreparedDevice>> reported = new HashMap<>();
  final List<String> cleared = new ArrayList<>();
  int gets;

  /** Runs inside every get: a test can hold a prepare there, with the node lock held. */
  Runnable duringGet = () -> {};

  /** While true, every get fails as ApiServerClaims does when the API server is away. */
  boolean unreachable;

  void put(ResourceClaim claim) {
    claims.put(claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName(), claim);
  }

  @Override
  public Optional<ResourceClaim> get(String namespace, String name) throws PrepareException {
    gets++;
    duringGet.run();
    if (unreachable) {
      throw new PrepareException(
          "cannot read claim "
              + namespace
              + "/"
              + name
              + " from the API server (Connection refused)");
    }
    return Optional.ofNullable(claims.get(namespace + "/" + name));
  }

  @Override
  public void reportPrepared(ClaimRef claim, List<PreparedDevice> devices) {
    reported.put(claim.uid(), devices);
  }

  @Override
  public void clearPrepared(ClaimRef claim) {
    reported.remove(claim.uid());
    cleared.add(claim.uid());
  }
}
