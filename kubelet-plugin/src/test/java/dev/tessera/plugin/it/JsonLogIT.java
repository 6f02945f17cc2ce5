package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plugin's jar run as the chart runs it with {@code logging.format=json} (its {@code
 * jvm.options} too): {@code LOG_FORMAT=json} turns every line it writes, from its start to its
 * stop, into one JSON object a log pipeline can read, with the key/values a text line carries (here
 * the metrics port).
 */
class JsonLogIT {
  private final JsonMapper json = JsonMapper.builder().build();

  @TempDir Path dir;

  @Test
  void everyLineFromStartToStopIsOneJsonObject() throws Exception {
    assertThat(KillablePlugin.JAR).as("the shaded plugin jar (built at package)").exists();
    Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 1);
    try (var api = new MockApiServer()) {
      var env = PluginProcess.nodeEnv(dir, root, api.writeKubeconfig(dir));
      env.put("LOG_FORMAT", "json");
      // With the JVM's flags too, as the image runs it: without them the JDK's warnings about
      // sun.misc.Unsafe (protobuf's, at the start-up's warm-up) go to stderr as text.
      try (var plugin =
          PluginProcess.start(
              KillablePlugin.JAR, dir.resolve("node"), PluginProcess.shippedJvmOptions(), env)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.readString(plugin.log()).contains("serving metrics"));
        plugin.close();
        List<JsonNode> lines =
            Files.readAllLines(plugin.log()).stream()
                .filter(l -> !l.isBlank())
                .map(json::readTree)
                .toList();
        assertThat(lines).allSatisfy(l -> assertThat(l.isObject()).isTrue());
        assertThat(lines)
            .allSatisfy(l -> assertThat(l.path("level").asString()).isNotBlank())
            .anySatisfy(
                l -> {
                  assertThat(l.path("message").asString()).startsWith("serving metrics");
                  assertThat(l.path("kvpList").toString()).contains("\"port\"");
                })
            .anySatisfy(
                l ->
                    assertThat(l.path("message").asString())
                        .contains("stopped serving the kubelet"));
      }
    }
  }
}
