package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static dev.tessera.plugin.Fixtures.timeSlicing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * SIGKILL of the plugin process at each step of an MPS or time-slicing prepare and unprepare, then
 * a restart: the node ends consistent (no MPS daemon, CDI spec or checkpoint entry of a claim that
 * did not complete; compute mode and time-slice back to the default when no claim uses them), and
 * the kubelet's retry of the call succeeds.
 *
 * <p>The plugin is held at a step in one of two ways, neither of them a hook in the plugin: a
 * driver tool stand-in told to sleep before it acts ({@code tool_delay_ms.<tool>} in the
 * simulator's config), or a FIFO at the fixed temp-file name of the next atomic write (CDI spec or
 * checkpoint), whose open blocks until the kill. The kill takes the JVM and the tool it is running,
 * as a container kill would; an MPS daemon it had started is left running, as it would be if it ran
 * outside the plugin's container.
 */
class SharingCrashIT {
  private static final String MPS_CONTROL = "nvidia-cuda-mps-control";
  private static final String SMI = "nvidia-smi";

  /** Where the plugin is killed. */
  enum Step {
    /** In {@code nvidia-cuda-mps-control -d}: started entry written, GPU already exclusive. */
    MPS_PREPARE_AFTER_STARTED_ENTRY(true, true),
    /** Daemon running, before the CDI spec is written. */
    MPS_PREPARE_AFTER_DAEMON_STARTED(true, true),
    /** CDI spec written, before the claim is checkpointed as completed. */
    MPS_PREPARE_AFTER_CDI_SPEC(true, true),
    /** In {@code nvidia-smi -c DEFAULT}: the daemon has quit, the GPU is still exclusive. */
    MPS_UNPREPARE_AFTER_DAEMON_STOPPED(true, false),
    /** Daemon stopped and spec removed, before the entry is dropped. */
    MPS_UNPREPARE_AFTER_CDI_SPEC_REMOVED(true, false),
    /** Time-slice set, before the CDI spec is written. */
    TIME_SLICING_PREPARE_AFTER_TIME_SLICE_SET(false, true),
    /** CDI spec written, before the claim is checkpointed as completed. */
    TIME_SLICING_PREPARE_AFTER_CDI_SPEC(false, true),
    /** In the first {@code nvidia-smi} of the unprepare, before the time-slice is restored. */
    TIME_SLICING_UNPREPARE_BEFORE_RESTORE(false, false),
    /** Time-slice restored and spec removed, before the entry is dropped. */
    TIME_SLICING_UNPREPARE_AFTER_CDI_SPEC_REMOVED(false, false);

    final boolean mps;
    final boolean prepare;

    Step(boolean mps, boolean prepare) {
      this.mps = mps;
      this.prepare = prepare;
    }
  }

  @TempDir Path dir;
  private Path root;
  private Path config;
  private String plainConfig;
  private MockApiServer api;
  private Path kubeconfig;
  private KillablePlugin node;

  @BeforeEach
  void layOut() throws Exception {
    root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 1);
    config = root.resolve("etc/mock-nvml/config");
    plainConfig = Files.readString(config);
    api = new MockApiServer();
    kubeconfig = api.writeKubeconfig(dir);
    node = new KillablePlugin(dir, root, kubeconfig);
  }

  @AfterEach
  void tearDown() throws Exception {
    node.close();
    api.close();
  }

  @ParameterizedTest
  @EnumSource(Step.class)
  void aPluginKilledMidwayLeavesTheNodeConsistentAfterItsRestart(Step step) throws Exception {
    ResourceClaim claim =
        api.client()
            .resource(
                claim(
                    "u",
                    "crash",
                    List.of(result("gpu", "gpu-0")),
                    List.of(
                        config(
                            "FromClaim",
                            List.of("gpu"),
                            step.mps ? mps("GpuConfig", 40, "20Gi") : timeSlicing("Long")))))
            .create();
    String uid = claim.getMetadata().getUid();
    node.start();
    String uuid = gpuState()[6];
    if (!step.prepare) {
      assertThat(node.prepareError(claim)).isEmpty();
    }

    // Hold the plugin at the step, then kill it there.
    Path cdiTemp =
        node.process().cdiDir().resolve(".k8s.gpu.tessera.dev-claim_" + uid + ".json.tmp");
    Path checkpointTemp = node.process().checkpointFile().resolveSibling(".checkpoint.json.tmp");
    String smiDefault = "-i " + uuid + " -c DEFAULT";
    long daemonStarts = countLines(toolLog(MPS_CONTROL), "-d ");
    long smiDefaults = countLines(toolLog(SMI), smiDefault);
    CompletableFuture<String> call;
    switch (step) {
      case MPS_PREPARE_AFTER_STARTED_ENTRY -> {
        holdTool(MPS_CONTROL, 60_000);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        awaitToolCall(MPS_CONTROL, "-d ", daemonStarts);
      }
      case MPS_PREPARE_AFTER_DAEMON_STARTED -> {
        node.fifo(cdiTemp);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> !node.mpsDaemons().isEmpty());
      }
      case MPS_PREPARE_AFTER_CDI_SPEC -> {
        holdTool(MPS_CONTROL, 1_500);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        awaitToolCall(MPS_CONTROL, "-d ", daemonStarts);
        node.fifo(checkpointTemp); // the started entry is written: the completed one will block
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(node.spec(uid)));
      }
      case MPS_UNPREPARE_AFTER_DAEMON_STOPPED, TIME_SLICING_UNPREPARE_BEFORE_RESTORE -> {
        holdTool(SMI, 60_000);
        call = CompletableFuture.supplyAsync(() -> node.kubelet().unprepare(claim));
        awaitToolCall(SMI, smiDefault, smiDefaults);
      }
      case MPS_UNPREPARE_AFTER_CDI_SPEC_REMOVED, TIME_SLICING_UNPREPARE_AFTER_CDI_SPEC_REMOVED -> {
        node.fifo(checkpointTemp);
        call = CompletableFuture.supplyAsync(() -> node.kubelet().unprepare(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(node.spec(uid)));
      }
      case TIME_SLICING_PREPARE_AFTER_TIME_SLICE_SET -> {
        node.fifo(cdiTemp);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> gpuState()[5].equals("3"));
      }
      case TIME_SLICING_PREPARE_AFTER_CDI_SPEC -> {
        holdTool(SMI, 1_500);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        awaitToolCall(SMI, smiDefault, smiDefaults);
        node.fifo(checkpointTemp);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(node.spec(uid)));
      }
      default -> throw new IllegalStateException(step.name());
    }
    node.kill();
    assertThat(call).failsWithin(Duration.ofSeconds(10));
    assertHalfDone(step, uid);
    Files.writeString(config, plainConfig);
    node.removeFifos();

    node.start(); // the start-up reconcile is done once the registration socket is served
    if (step.prepare) {
      // Rolled back before the kubelet could call: nothing of the claim is left.
      assertThat(node.claims().has(uid)).isFalse();
      assertThat(node.spec(uid)).doesNotExist();
      assertThat(node.mpsDaemons()).isEmpty();
      assertNoMpsDirs();
      assertThat(gpuState()[4]).as("compute mode").isEqualTo("0");
      assertThat(gpuState()[5]).as("time-slice").isEqualTo("0");

      // The kubelet's retry prepares it from scratch.
      assertThat(node.prepareError(claim)).isEmpty();
      assertThat(node.claims().get(uid).get("state").asString()).isEqualTo("PrepareCompleted");
      assertThat(node.spec(uid)).exists();
      if (step.mps) {
        assertThat(node.mpsDaemons()).hasSize(1);
        assertThat(gpuState()[4]).isEqualTo("3");
      } else {
        assertThat(gpuState()[5]).isEqualTo("3");
      }
    } else {
      // The unprepare did not complete: the claim is still prepared, its daemon runs (found
      // again, or started again when it had quit), until the kubelet's retry.
      assertThat(node.claims().get(uid).get("state").asString()).isEqualTo("PrepareCompleted");
      assertThat(node.mpsDaemons()).hasSize(step.mps ? 1 : 0);
    }
    assertThat(node.kubelet().unprepare(claim)).isEmpty();

    assertThat(node.claims().size()).isZero();
    assertThat(node.spec(uid)).doesNotExist();
    assertThat(node.mpsDaemons()).isEmpty();
    assertNoMpsDirs();
    assertThat(gpuState()[4]).as("compute mode").isEqualTo("0");
    assertThat(gpuState()[5]).as("time-slice").isEqualTo("0");
  }

  /** What the killed plugin left, before the restart: the step was really reached. */
  private void assertHalfDone(Step step, String uid) throws IOException {
    JsonNode entry = node.claims().get(uid);
    assertThat(entry.get("state").asString())
        .isEqualTo(step.prepare ? "PrepareStarted" : "PrepareCompleted");
    switch (step) {
      case MPS_PREPARE_AFTER_STARTED_ENTRY -> {
        assertThat(gpuState()[4]).isEqualTo("3");
        assertThat(node.mpsDaemons()).isEmpty();
        assertThat(node.spec(uid)).doesNotExist();
      }
      case MPS_PREPARE_AFTER_DAEMON_STARTED -> {
        assertThat(node.mpsDaemons()).hasSize(1);
        assertThat(node.spec(uid)).doesNotExist();
      }
      case MPS_PREPARE_AFTER_CDI_SPEC -> {
        assertThat(node.mpsDaemons()).hasSize(1);
        assertThat(node.spec(uid)).exists();
      }
      case MPS_UNPREPARE_AFTER_DAEMON_STOPPED -> {
        assertThat(node.mpsDaemons()).isEmpty();
        assertThat(gpuState()[4]).isEqualTo("3");
        assertThat(node.spec(uid)).exists();
      }
      case MPS_UNPREPARE_AFTER_CDI_SPEC_REMOVED -> {
        assertThat(node.mpsDaemons()).isEmpty();
        assertThat(gpuState()[4]).isEqualTo("0");
        assertThat(node.spec(uid)).doesNotExist();
      }
      case TIME_SLICING_PREPARE_AFTER_TIME_SLICE_SET -> {
        assertThat(gpuState()[5]).isEqualTo("3");
        assertThat(node.spec(uid)).doesNotExist();
      }
      case TIME_SLICING_PREPARE_AFTER_CDI_SPEC, TIME_SLICING_UNPREPARE_BEFORE_RESTORE -> {
        assertThat(gpuState()[5]).isEqualTo("3");
        assertThat(node.spec(uid)).exists();
      }
      case TIME_SLICING_UNPREPARE_AFTER_CDI_SPEC_REMOVED -> {
        assertThat(gpuState()[5]).isEqualTo("0");
        assertThat(node.spec(uid)).doesNotExist();
      }
      default -> throw new IllegalStateException(step.name());
    }
  }

  private void holdTool(String tool, int millis) throws IOException {
    Files.writeString(config, plainConfig + "tool_delay_ms." + tool + "=" + millis + "\n");
  }

  private Path toolLog(String tool) {
    return root.resolve("var/log/mock-nvml/" + tool + ".log");
  }

  /** Waits until the tool was called once more with arguments starting {@code prefix}. */
  private void awaitToolCall(String tool, String prefix, long before) {
    await().atMost(Duration.ofSeconds(30)).until(() -> countLines(toolLog(tool), prefix) > before);
  }

  private void assertNoMpsDirs() throws IOException {
    if (Files.exists(node.mpsRoot())) {
      assertThat(node.mpsRoot()).isEmptyDirectory();
    }
  }

  private static long countLines(Path log, String prefix) {
    try {
      return Files.exists(log)
          ? Files.readAllLines(log).stream().filter(l -> l.startsWith(prefix)).count()
          : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** The simulator's line for GPU 0: {@code gpu idx cur pending computeMode timeslice uuid}. */
  private String[] gpuState() throws IOException {
    return Files.readAllLines(root.resolve("var/lib/mock-nvml/state")).stream()
        .filter(l -> l.startsWith("gpu 0 "))
        .findFirst()
        .orElseThrow()
        .split(" ");
  }
}
