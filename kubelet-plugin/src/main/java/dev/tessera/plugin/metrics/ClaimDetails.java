package dev.tessera.plugin.metrics;

import dev.tessera.api.DeviceAttributeNames;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the series of a claim show beside the checkpoint's claim reference, read from the claim
 * object: the pods reserving it and the memory it consumed of each shared device of this node.
 *
 * @param consumedMemoryBytes by device name; absent for a device consumed whole
 */
public record ClaimDetails(String uid, List<String> pods, Map<String, Long> consumedMemoryBytes) {
  public ClaimDetails {
    pods = List.copyOf(pods);
    consumedMemoryBytes = Map.copyOf(consumedMemoryBytes);
  }

  /** The details of {@code claim}, for the devices of {@code driver} in {@code pool}. */
  public static ClaimDetails of(ResourceClaim claim, String driver, String pool) {
    var status = claim.getStatus();
    List<String> pods =
        status == null || status.getReservedFor() == null
            ? List.of()
            : status.getReservedFor().stream()
                .filter(r -> "pods".equals(r.getResource()))
                .map(ResourceClaimConsumerReference::getName)
                .sorted()
                .toList();
    var consumed = new HashMap<String, Long>();
    List<DeviceRequestAllocationResult> results =
        status == null
                || status.getAllocation() == null
                || status.getAllocation().getDevices() == null
                || status.getAllocation().getDevices().getResults() == null
            ? List.of()
            : status.getAllocation().getDevices().getResults();
    for (DeviceRequestAllocationResult result : results) {
      Map<String, Quantity> capacity = result.getConsumedCapacity();
      if (driver.equals(result.getDriver())
          && pool.equals(result.getPool())
          && capacity != null
          && capacity.containsKey(DeviceAttributeNames.MEMORY)) {
        long bytes =
            Quantity.getAmountInBytes(capacity.get(DeviceAttributeNames.MEMORY)).longValue();
        consumed.merge(result.getDevice(), bytes, Long::sum);
      }
    }
    return new ClaimDetails(claim.getMetadata().getUid(), pods, consumed);
  }
}
