package dev.tessera.plugin.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.Fixtures;
import dev.tessera.plugin.claim.ClaimRef;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrepareWarmUpTest {
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final List<String> rehearsed = new ArrayList<>();

  private PrepareWarmUp warmUp(NodeInventory inventory) {
    return new PrepareWarmUp(
        "gpu.example.com",
        "node-7",
        () ->
            (ClaimRef ref, ResourceClaim claim) ->
                rehearsed.add(
                    ref.uid()
                        + " "
                        + claim
                            .getStatus()
                            .getAllocation()
                            .getDevices()
                            .getResults()
                            .getFirst()
                            .getDevice()),
        () -> inventory);
  }

  /** The node with only {@code inventory}'s GPUs {@code from} to {@code to} (exclusive). */
  private static NodeInventory gpus(NodeInventory inventory, int from, int to) {
    return new NodeInventory(
        inventory.driverVersion(),
        inventory.cudaDriverVersion(),
        inventory.nvmlVersion(),
        inventory.gpus().subList(from, to));
  }

  private ResourceClaim sample(PrepareWarmUp warmUp) {
    return serialization.unmarshal(warmUp.sampleClaim(), ResourceClaim.class);
  }

  @Test
  void theSampleClaimIsAllocatedOnThisNodeByThisDriver() {
    var claim = sample(warmUp(Fixtures.inventory(1)));

    var allocation = claim.getStatus().getAllocation();
    var result = allocation.getDevices().getResults().getFirst();
    assertThat(result.getDriver()).isEqualTo("gpu.example.com");
    assertThat(result.getPool()).isEqualTo("node-7");
    assertThat(allocation.getDevices().getConfig().getFirst().getOpaque().getDriver())
        .isEqualTo("gpu.example.com");
    assertThat(
            allocation
                .getNodeSelector()
                .getNodeSelectorTerms()
                .getFirst()
                .getMatchFields()
                .getFirst()
                .getValues())
        .containsExactly("node-7");
    assertThat(claim.getMetadata().getUid()).isEqualTo(PrepareWarmUp.SAMPLE.uid());
  }

  @Test
  void rehearsesTheFirstGpuTheNodeUsesWhole() {
    // GPU 1 is in MIG mode: the rehearsal takes GPU 0, then GPU 2 once GPU 0 is gone.
    var inventory = Fixtures.inventory(3);
    var warmUp = warmUp(inventory);
    warmUp.run(sample(warmUp));
    var second = warmUp(gpus(inventory, 1, 3));
    second.run(sample(second));

    assertThat(rehearsed)
        .containsExactly(
            PrepareWarmUp.SAMPLE.uid() + " gpu-0", PrepareWarmUp.SAMPLE.uid() + " gpu-2");
  }

  @Test
  void aNodeOfMigDevicesRehearsesOneThatExists() {
    // GPU 1 is in MIG mode with a 1g.10gb device at slice 0.
    var warmUp = warmUp(gpus(Fixtures.inventory(2), 1, 2));

    warmUp.run(sample(warmUp));

    assertThat(rehearsed).containsExactly(PrepareWarmUp.SAMPLE.uid() + " gpu-1-mig-1g10gb-0");
  }

  @Test
  void aNodeWithoutADeviceRehearsesNothing() {
    var warmUp = warmUp(gpus(Fixtures.inventory(2), 0, 0));

    warmUp.run(sample(warmUp));
    warmUp.run(null);
    warmUp(Fixtures.inventory(1)).run(null);

    assertThat(rehearsed).isEmpty();
  }
}
