package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedDevice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Optional;

/** The API server, as far as prepare needs it: read a claim, report its devices' status. */
public interface ClaimSource {

  /**
   * The claim as the API server has it now, empty when it has none.
   *
   * @throws PrepareException when the API server cannot be read (away, refusing): the prepare fails
   *     with that message and the kubelet retries it
   */
  Optional<ResourceClaim> get(String namespace, String name) throws PrepareException;

  /**
   * Records our prepared devices in the claim's {@code status.devices} (condition Ready, UUIDs in
   * {@code data}), replacing earlier entries of our driver and keeping other drivers' entries.
   */
  void reportPrepared(ClaimRef claim, List<PreparedDevice> devices);

  /**
   * Removes our driver's entries from the claim's {@code status.devices}, if the claim is there.
   */
  void clearPrepared(ClaimRef claim);
}
