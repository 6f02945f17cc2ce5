package dev.tessera.plugin.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.Fixtures;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClaimDetailsTest {
  @Test
  void podsFromReservedForAndConsumedMemoryOfThisNodesDevices() {
    var share =
        new DeviceRequestAllocationResultBuilder(Fixtures.result("gpu", "gpu-0"))
            .withConsumedCapacity(
                Map.of("memory", new Quantity("8Gi"), "compute", new Quantity("25")))
            .build();
    var elsewhere =
        new DeviceRequestAllocationResultBuilder(Fixtures.result("gpu", "gpu-1"))
            .withPool("node-b")
            .withConsumedCapacity(Map.of("memory", new Quantity("4Gi")))
            .build();
    var claim =
        Fixtures.claim(
            "uid-a", "a", List.of(share, elsewhere, Fixtures.result("x", "gpu-2")), List.of());
    claim
        .getStatus()
        .setReservedFor(
            List.of(
                new ResourceClaimConsumerReferenceBuilder()
                    .withResource("pods")
                    .withName("pod-b")
                    .withUid("p2")
                    .build(),
                new ResourceClaimConsumerReferenceBuilder()
                    .withResource("pods")
                    .withName("pod-a")
                    .withUid("p1")
                    .build()));

    var details = ClaimDetails.of(claim, Fixtures.DRIVER, Fixtures.NODE);

    assertThat(details)
        .isEqualTo(new ClaimDetails("uid-a", List.of("pod-a", "pod-b"), Map.of("gpu-0", 8L << 30)));
  }
}
