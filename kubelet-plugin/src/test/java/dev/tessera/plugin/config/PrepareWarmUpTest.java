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
    var withoutGpu0 =
        new NodeInventory(
            inventory.driverVersion(),
            inventory.cudaDriverVersion(),
            inventory.nvmlVersion(),
            inventory.gpus().subList(1, 3));
    var second = warmUp(withoutGpu0);
    second.run(sample(second));

    assertThat(rehearsed)
        .containsExactly(
            PrepareWarmUp.SAMPLE.uid() + " gpu-0", PrepareWarmUp.SAMPLE.uid() + " gpu-2");
  }

  @Test
  void aNodeWithoutAGpuInUseWholeRehearsesNothing() {
    var inventory = Fixtures.inventory(2);
    var onlyMig =
        new NodeInventory(
            inventory.driverVersion(),
            inventory.cudaDriverVersion(),
            inventory.nvmlVersion(),
            inventory.gpus().subList(1, 2));
    var warmUp = warmUp(onlyMig);

    warmUp.run(sample(warmUp));
    warmUp.run(null);

    assertThat(rehearsed).isEmpty();
  }
}
