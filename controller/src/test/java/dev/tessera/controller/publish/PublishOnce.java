package dev.tessera.controller.publish;

import dev.tessera.api.DriverNames;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.nvml.JnaNvml;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Publishes one node's slices once, from the NVML it can read — a stand-in for the controller in
 * end-to-end runs until the controller's publisher exists (issue 3). Arguments: {@code <kubeconfig>
 * <driver root> <node name> <offering label>}.
 */
public final class PublishOnce {
  private PublishOnce() {}

  public static void main(String[] args) throws Exception {
    var config = Config.fromKubeconfig(Files.readString(Path.of(args[0])));
    Offering offering =
        Offering.fromLabel(args[3])
            .orElseThrow(() -> new IllegalArgumentException("offering " + args[3]));
    try (var client = new KubernetesClientBuilder().withConfig(config).build();
        var nvml = JnaNvml.open(Path.of(args[1]))) {
      var node = client.nodes().withName(args[2]).get();
      var inventory = new GpuDiscovery(nvml).discover();
      var contents = new SliceRenderer().render(inventory, offering);
      var slices =
          new PoolSlices(DriverNames.DEFAULT_DRIVER)
              .slices(args[2], node.getMetadata().getUid(), 1, contents);
      for (var slice : slices) {
        client.resource(slice).serverSideApply();
        System.out.println("published " + slice.getMetadata().getName());
      }
    }
  }
}
