package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plugin as a DaemonSet runs it: the host's driver root mounted at another path in its
 * container ({@code tessera.driver-root}), the host's path given apart ({@code
 * tessera.host-driver-root}). The CDI specs it writes are read by the host's container runtime, so
 * every host path in them must be the host's, while containers still see the driver's files at
 * their usual paths. Here the "host" path is a symlink to the plugin's, so both views resolve.
 */
class DriverRootIT {
  @TempDir Path dir;
  private final JsonMapper json = JsonMapper.builder().build();
  private MockApiServer api;
  private PluginHarness plugin;
  private Path onHost;

  @BeforeEach
  void start() throws Exception {
    Path inPlugin =
        SimulatedNode.layOut(
            dir.resolve("driver-root"),
            "H100-SXM5-80GB",
            2,
            "--mig-enabled",
            "1",
            "--mig",
            "1:9@4");
    onHost = Files.createSymbolicLink(dir.resolve("host-driver-root"), inPlugin);
    api = new MockApiServer();
    plugin =
        new PluginHarness(dir.resolve("node"), inPlugin, api)
            .withProperty("tessera.host-driver-root", onHost.toString())
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    plugin.close();
    api.close();
  }

  @Test
  void cdiSpecsNameTheHostsPathsAndTheContainersUsualOnes() throws Exception {
    ResourceClaim claim =
        plugin.create(
            claim(
                "uid-roots",
                "roots",
                List.of(result("gpu", "gpu-0"), result("mig", "gpu-1-mig-3g40gb-4")),
                List.of()));
    String uid = claim.getMetadata().getUid();

    assertThat(plugin.kubelet().prepare(claim).get(uid).getError()).isEmpty();

    JsonNode spec = json.readTree(Files.readString(plugin.specFile(uid)));
    List<String> hostPaths = spec.findValuesAsString("hostPath");
    // The driver's files and device nodes, each from the host's view of the driver root.
    assertThat(hostPaths)
        .isNotEmpty()
        .allSatisfy(p -> assertThat(p).startsWith(onHost + "/"))
        .allSatisfy(p -> assertThat(Path.of(p)).exists())
        .anyMatch(p -> p.endsWith("/dev/nvidia0"))
        .anyMatch(p -> p.contains("/dev/nvidia-caps/nvidia-cap"))
        .anyMatch(p -> p.endsWith("/usr/bin/nvidia-smi"));
    assertThat(spec.toString()).doesNotContain(dir.resolve("driver-root").toString());
    assertThat(spec.get("containerEdits").get("mounts").findValuesAsString("containerPath"))
        .contains("/usr/bin/nvidia-smi")
        .anyMatch(p -> p.startsWith("/usr/lib/x86_64-linux-gnu/libcuda.so."));
    assertThat(spec.findValuesAsString("path"))
        .contains("/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia1")
        .anyMatch(p -> p.startsWith("/dev/nvidia-caps/nvidia-cap"));

    assertThat(plugin.kubelet().unprepare(claim)).isEmpty();
  }
}
