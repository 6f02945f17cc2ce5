package dev.tessera.plugin.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

class PrepareWarmUpTest {
  @TempDir Path cdiDir;

  @Test
  void rendersASpecAndAReplyWithoutWritingAnythingContainerdWouldRead() throws Exception {
    var common =
        new CdiSpec.ContainerEdits(
            List.of("NVIDIA_VISIBLE_DEVICES=void"),
            List.of(new CdiSpec.DeviceNode("/dev/nvidiactl", null)),
            List.of());
    var writer = new CdiSpecWriter(cdiDir, "gpu.tessera.dev", JsonMapper.builder().build());

    new PrepareWarmUp(new CdiSpecBuilder("gpu.tessera.dev", common), writer).run();

    try (var files = Files.list(cdiDir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void whatItRendersIsWhatAPrepareWrites() throws Exception {
    var writer = new CdiSpecWriter(cdiDir, "gpu.tessera.dev", JsonMapper.builder().build());
    var spec =
        new CdiSpecBuilder(
                "gpu.tessera.dev", new CdiSpec.ContainerEdits(List.of(), List.of(), List.of()))
            .build(
                "uid",
                List.of(
                    new CdiSpecBuilder.DeviceEdits(
                        "gpu-0", List.of(new CdiSpec.DeviceNode("/dev/nvidia0", null)))));

    writer.write("uid", spec);

    assertThat(Files.readAllBytes(writer.specFile("uid"))).isEqualTo(writer.render(spec));
  }
}
