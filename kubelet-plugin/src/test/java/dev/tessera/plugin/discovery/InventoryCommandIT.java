package dev.tessera.plugin.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.nvml.MockNvmlRoot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class InventoryCommandIT {
  @TempDir Path root;

  @Test
  void printsTheInventoryAsJsonThatReadsBack() {
    MockNvmlRoot.setup(
        root,
        "--profile",
        "A100-SXM4-40GB",
        "--gpus",
        "2",
        "--seed",
        "node-a",
        "--mig-enabled",
        "0",
        "--mig",
        "0:9@0");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    NodeInventory printed =
        new InventoryCommand().run(root, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    String json = bytes.toString(StandardCharsets.UTF_8);
    JsonMapper mapper = JsonMapper.builder().build();
    JsonNode tree = mapper.readTree(json);
    assertThat(tree.get("driverVersion").asString()).isEqualTo("580.95.05");
    assertThat(tree.get("cudaDriverVersion").asString()).isEqualTo("13.0");
    assertThat(tree.get("gpus")).hasSize(2);
    assertThat(tree.get("gpus").get(0).get("uuid").asString()).startsWith("GPU-");
    assertThat(tree.get("gpus").get(0).get("migDevices").get(0).get("profile").asString())
        .isEqualTo("3g.20gb");
    assertThat(json).contains("\n  ");
    assertThat(mapper.readValue(json, NodeInventory.class)).isEqualTo(printed);
  }
}
