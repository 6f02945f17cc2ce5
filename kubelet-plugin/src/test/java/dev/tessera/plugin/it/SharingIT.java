package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static dev.tessera.plugin.Fixtures.timeSlicing;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Time-slicing and MPS through the real plugin over its sockets, on the simulator (H100 x2, GPU 1
 * in MIG mode with a 1g.10gb device at slice 0): what the driver tools were asked to do, what the
 * simulated GPU ends up with, and what containers get through CDI.
 */
class SharingIT {
  private static final String MIG_DEVICE = "gpu-1-mig-1g10gb-0";

  @RegisterExtension
  final SimulatedPlugin node =
      new SimulatedPlugin("H100-SXM5-80GB", 2, "--mig-enabled", "1", "--mig", "1:19@0");

  private final JsonMapper json = JsonMapper.builder().build();

  private ResourceClaim shared(String name, String device, Map<String, Object> params) {
    return node.plugin()
        .create(
            claim(
                "uid-" + name,
                name,
                List.of(result("gpu", device)),
                List.of(config("FromClaim", List.of("gpu"), params))));
  }

  private String prepare(ResourceClaim claim) {
    return node.plugin().kubelet().prepare(claim).get(claim.getMetadata().getUid()).getError();
  }

  /** The simulator's line for a GPU: {@code gpu idx cur pending computeMode timeslice uuid}. */
  private String[] gpuState(int index) throws IOException {
    return Files.readAllLines(node.root().resolve("var/lib/mock-nvml/state")).stream()
        .filter(l -> l.startsWith("gpu " + index + " "))
        .findFirst()
        .orElseThrow()
        .split(" ");
  }

  private List<String> toolLog(String tool) throws IOException {
    Path log = node.root().resolve("var/log/mock-nvml/" + tool + ".log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  private Path mpsDir(String uuid) {
    return node.plugin().dir.resolve("plugins/" + PluginHarness.DRIVER + "/mps/" + uuid);
  }

  private long daemonPid(String uuid) throws IOException {
    return Long.parseLong(
        Files.readString(mpsDir(uuid).resolve("pipe/nvidia-cuda-mps-control.pid")).strip());
  }

  private JsonNode cdiEdits(ResourceClaim claim) throws IOException {
    return json.readTree(Files.readString(node.plugin().specFile(claim.getMetadata().getUid())))
        .get("devices")
        .get(0)
        .get("containerEdits");
  }

  @Test
  void theTimeSliceIsSetForTheFirstClaimAndRestoredAfterTheLast() throws Exception {
    var a = shared("a", "gpu-0", timeSlicing("Long"));
    var b = shared("b", "gpu-0", timeSlicing("Long"));
    String uuid = gpuState(0)[6];

    assertThat(prepare(a)).isEmpty();
    assertThat(prepare(b)).isEmpty();
    assertThat(prepare(a)).isEmpty(); // the kubelet asks again: nothing is applied twice

    assertThat(gpuState(0)[5]).isEqualTo("3");
    assertThat(toolLog("nvidia-smi"))
        .containsExactly(
            "-i " + uuid + " -c DEFAULT", "compute-policy -i " + uuid + " --set-timeslice 3");

    assertThat(node.plugin().kubelet().unprepare(a)).isEmpty();
    assertThat(gpuState(0)[5]).isEqualTo("3");
    assertThat(node.plugin().kubelet().unprepare(b)).isEmpty();
    assertThat(gpuState(0)[5]).isEqualTo("0");
  }

  @Test
  void aSecondIntervalOnTheSameGpuFailsThatClaimAndChangesNothing() throws Exception {
    var a = shared("a", "gpu-0", timeSlicing("Short"));
    var b = shared("b", "gpu-0", timeSlicing("Long"));
    assertThat(prepare(a)).isEmpty();
    var before = toolLog("nvidia-smi");

    assertThat(prepare(b))
        .contains("claim default/b")
        .contains("interval Long")
        .contains("claim default/a")
        .contains("interval Short");

    assertThat(toolLog("nvidia-smi")).isEqualTo(before);
    assertThat(gpuState(0)[5]).isEqualTo("1");
    assertThat(node.plugin().specFile(b.getMetadata().getUid())).doesNotExist();
  }

  @Test
  void mpsRunsOneDaemonPerGpuThatSurvivesARestartAndStopsAfterTheLastClaim() throws Exception {
    var a = shared("a", "gpu-0", mps("GpuConfig", 40, "20Gi"));
    var b = shared("b", "gpu-0", mps("GpuConfig", 60, "40Gi"));
    String uuid = gpuState(0)[6];

    assertThat(prepare(a)).isEmpty();
    assertThat(prepare(b)).isEmpty();
    long pid = daemonPid(uuid);
    assertThat(ProcessHandle.of(pid)).isPresent();
    assertThat(gpuState(0)[4]).isEqualTo("3"); // EXCLUSIVE_PROCESS
    assertThat(toolLog("nvidia-cuda-mps-control"))
        .containsExactly(
            "-d | pipe=%s log=%s visible=%s"
                .formatted(mpsDir(uuid).resolve("pipe"), mpsDir(uuid).resolve("log"), uuid));

    JsonNode edits = cdiEdits(b);
    assertThat(edits.get("env").toString())
        .contains("\"CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps\"")
        .contains("\"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=60\"")
        .contains("\"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=40960M\"");
    assertThat(edits.get("mounts").toString())
        .contains(mpsDir(uuid).resolve("pipe").toString())
        .contains("/dev/shm");

    // A restart finds the daemon again: not started twice, not stopped.
    node.plugin().stop();
    node.plugin().start();
    assertThat(prepare(a)).isEmpty();
    assertThat(daemonPid(uuid)).isEqualTo(pid);
    assertThat(toolLog("nvidia-cuda-mps-control")).hasSize(1);

    assertThat(node.plugin().kubelet().unprepare(a)).isEmpty();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);
    assertThat(node.plugin().kubelet().unprepare(b)).isEmpty();
    assertThat(toolLog("nvidia-cuda-mps-control")).last().asString().endsWith("stdin: quit;");
    assertThat(mpsDir(uuid)).doesNotExist();
    assertThat(gpuState(0)[4]).isEqualTo("0");
  }

  @Test
  void limitsBeyondTheDeviceAndMpsOnATimeSlicedGpuAreRefused() throws Exception {
    var a = shared("a", "gpu-0", mps("GpuConfig", 50, "60Gi"));
    var b = shared("b", "gpu-0", mps("GpuConfig", 50, "30Gi"));
    var sliced = shared("sliced", "gpu-0", timeSlicing("Short"));
    assertThat(prepare(a)).isEmpty();

    assertThat(prepare(b)).contains("would add up to 90Gi").contains("more than its");
    assertThat(prepare(sliced)).contains("claim default/a").contains("MPS");

    assertThat(toolLog("nvidia-cuda-mps-control")).hasSize(1);
    assertThat(toolLog("nvidia-smi")).noneMatch(l -> l.contains("timeslice"));
  }

  @Test
  void aMigDeviceGetsItsOwnDaemon() throws Exception {
    var a = shared("a", MIG_DEVICE, mps("MigDeviceConfig", 100, "5Gi"));

    assertThat(prepare(a)).isEmpty();

    String line = toolLog("nvidia-cuda-mps-control").get(0);
    assertThat(line).contains("visible=MIG-");
    String uuid = line.substring(line.indexOf("visible=") + "visible=".length());
    assertThat(ProcessHandle.of(daemonPid(uuid))).isPresent();
    assertThat(toolLog("nvidia-smi")).isEmpty(); // a MIG device has no compute mode of its own

    assertThat(node.plugin().kubelet().unprepare(a)).isEmpty();
    assertThat(mpsDir(uuid)).doesNotExist();
  }

  /** A claim the scheduler gave a share of a {@code shared} GPU: a share ID and consumed memory. */
  private ResourceClaim memoryShare(String name, String memory) {
    var share =
        new DeviceRequestAllocationResultBuilder(result("gpu", "gpu-0"))
            .withShareID("00000000-0000-0000-0000-00000000000" + name.length())
            .withConsumedCapacity(Map.of("memory", new Quantity(memory)))
            .build();
    return node.plugin().create(claim("uid-" + name, name, List.of(share), List.of()));
  }

  @Test
  void memorySharesAreEnforcedWithMpsPinnedMemoryLimits() throws Exception {
    var shares =
        List.of(memoryShare("a", "20Gi"), memoryShare("bb", "20Gi"), memoryShare("ccc", "20Gi"));
    var fourth = memoryShare("dddd", "20Gi");

    for (ResourceClaim share : shares) {
      assertThat(prepare(share)).isEmpty();
      assertThat(cdiEdits(share).get("env").toString())
          .contains("\"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20480M\"");
    }
    // The simulated H100 has 81559 MiB: a fourth 20Gi share does not fit (the controller publishes
    // 79Gi of it, so the scheduler would not allocate it either).
    assertThat(prepare(fourth)).contains("would add up to 80Gi").contains("more than its");
    assertThat(toolLog("nvidia-cuda-mps-control")).hasSize(1);
  }
}
