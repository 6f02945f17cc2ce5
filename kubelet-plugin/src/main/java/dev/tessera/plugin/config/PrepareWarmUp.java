package dev.tessera.plugin.config;

import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.kubelet.DraV1Service;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * Renders, once at start-up, what a prepare writes and answers: a claim's CDI spec through the spec
 * writer (Jackson builds its serializers for the spec's records on first use) and a DRA reply
 * through protobuf. Nothing is written. Run on the warm-up's thread after the client's part, before
 * the plugin offers registration: ~5 ms there, ~10 ms less on the first prepare with the AOT cache
 * (docs/benchmarks.md, "Registration after the client's warm-up").
 */
@Singleton
public class PrepareWarmUp {
  private final CdiSpecBuilder specs;
  private final CdiSpecWriter writer;

  public PrepareWarmUp(CdiSpecBuilder specs, CdiSpecWriter writer) {
    this.specs = specs;
    this.writer = writer;
  }

  public void run() {
    var device =
        new CdiSpecBuilder.DeviceEdits(
            "gpu-0", List.of(new CdiSpec.DeviceNode("/dev/nvidia0", null)));
    writer.render(specs.build("00000000-0000-0000-0000-000000000000", List.of(device)));
    DraV1Service.warmUp();
  }
}
