package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * SIGKILL of the plugin process at each step of a dynamic MIG prepare and unprepare, then a
 * restart: the node ends consistent (no GPU instance the checkpoint does not account for, no CDI
 * spec or checkpoint entry of a claim whose prepare did not complete, MIG mode back off where the
 * claim switched it on, the admin's MIG devices untouched), and the kubelet's retry of the call
 * succeeds and ends clean.
 *
 * <p>The plugin is held at a step without any hook in it: the simulator's per-call delay ({@code
 * delay_ms.<nvmlSymbol>}, read when the plugin opens NVML) holds it in the NVML call that would do
 * the next step; a FIFO at the fixed temp-file name of the next atomic write (checkpoint or CDI
 * spec) holds it in that write's open. Where a FIFO must block only the second of two writes, a
 * short delay in the step before holds the plugin while the FIFO is made.
 *
 * <p>GPU 1 always carries an admin's 1g.10gb at slice 0 (GPU instance 7); GPU 0 carries one too
 * when it starts in MIG mode, and starts with MIG mode off otherwise, so the claim's prepare must
 * switch it on. The claim asks for {@code gpu-0-mig-1g10gb-3}: GPU instance 10.
 */
class DynamicMigCrashIT {
  private static final String DEVICE = "gpu-0-mig-1g10gb-3";
  private static final int GPU_INSTANCE = 10;
  private static final String MPS_CONTROL = "nvidia-cuda-mps-control";
  private static final int HOLD_MS = 60_000;

  /** Where the plugin is killed; {@code migOff}: GPU 0 starts with MIG mode off. */
  enum Step {
    /** Intent checkpointed, in the GPU instance create: nothing made yet. */
    PREPARE_AFTER_INTENT(true, false, false),
    /** MIG mode switched on by this prepare, in the GPU instance create. */
    PREPARE_AFTER_MIG_MODE_ON(true, true, false),
    /** GPU instance made, in its compute instance create. */
    PREPARE_AFTER_GPU_INSTANCE(true, false, false),
    /** MIG mode on, GPU and compute instance made, before their ids are checkpointed. */
    PREPARE_AFTER_COMPUTE_INSTANCE(true, true, false),
    /** Ids checkpointed, before the CDI spec is written. */
    PREPARE_AFTER_IDS_CHECKPOINTED(true, false, false),
    /** MPS on the MIG device: daemon started and CDI spec written, before "completed". */
    PREPARE_AFTER_CDI_SPEC(true, false, true),
    /** CDI spec removed, in the compute instance destroy. */
    UNPREPARE_AFTER_CDI_SPEC_REMOVED(false, true, false),
    /** Compute instance destroyed, in the GPU instance destroy. */
    UNPREPARE_AFTER_COMPUTE_INSTANCE_DESTROYED(false, true, false),
    /** GPU instance destroyed and MIG mode off again, before the entry is dropped. */
    UNPREPARE_AFTER_GPU_INSTANCE_DESTROYED(false, true, false);

    final boolean prepare;
    final boolean migOff;
    final boolean mps;

    Step(boolean prepare, boolean migOff, boolean mps) {
      this.prepare = prepare;
      this.migOff = migOff;
      this.mps = mps;
    }
  }

  @TempDir Path dir;
  private Path root;
  private Path config;
  private String plainConfig;
  private MockApiServer api;
  private Path kubeconfig;
  private KillablePlugin node;
  private final JsonMapper json = JsonMapper.builder().build();
  private List<String> adminGpuInstances;

  @AfterEach
  void tearDown() throws Exception {
    if (node != null) {
      node.close();
    }
    if (api != null) {
      api.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Step.class)
  void aPluginKilledMidwayLeavesTheNodeConsistentAfterItsRestart(Step step) throws Exception {
    root =
        SimulatedNode.layOut(
            dir.resolve("driver-root"),
            "H100-SXM5-80GB",
            2,
            step.migOff
                ? new String[] {"--mig", "1:19@0"}
                : new String[] {"--mig-enabled", "0,1", "--mig", "0:19@0;1:19@0"});
    config = root.resolve("etc/mock-nvml/config");
    plainConfig = Files.readString(config);
    api = new MockApiServer();
    kubeconfig = api.writeKubeconfig(dir);
    node = new KillablePlugin(dir, root, kubeconfig);

    ResourceClaim claim =
        api.client()
            .resource(
                claim(
                    "u",
                    "crash",
                    List.of(result("mig", DEVICE)),
                    step.mps
                        ? List.of(
                            config("FromClaim", List.of("mig"), mps("MigDeviceConfig", 50, "4Gi")))
                        : List.of()))
            .create();
    String uid = claim.getMetadata().getUid();

    // The per-call delays are read when the plugin opens NVML: set before it starts.
    Files.writeString(config, plainConfig + delays(step));
    node.start();
    // The simulator writes its state file when NVML is first opened on the root.
    List<String> adminInstances = adminInstances();
    adminGpuInstances = gpuInstances();
    assertThat(adminInstances).hasSize(step.migOff ? 2 : 4);
    assertThat(migMode()).isEqualTo(step.migOff ? "0" : "1");
    if (!step.prepare) {
      assertThat(node.prepareError(claim)).isEmpty();
      assertThat(giCapability()).exists();
    }

    // Hold the plugin at the step, then kill it there.
    Path cdiTemp =
        node.process().cdiDir().resolve(".k8s.gpu.tessera.dev-claim_" + uid + ".json.tmp");
    Path checkpointTemp = node.process().checkpointFile().resolveSibling(".checkpoint.json.tmp");
    CompletableFuture<?> call;
    switch (step) {
      case PREPARE_AFTER_INTENT -> {
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        awaitEntry(uid);
      }
      case PREPARE_AFTER_MIG_MODE_ON -> {
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> migMode().equals("1"));
      }
      case PREPARE_AFTER_GPU_INSTANCE -> {
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(giCapability()));
      }
      case PREPARE_AFTER_COMPUTE_INSTANCE -> {
        // In the compute instance create (short delay) the intent is written: the next write,
        // of the ids, blocks.
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(giCapability()));
        node.fifo(checkpointTemp);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(ciCapability()));
      }
      case PREPARE_AFTER_IDS_CHECKPOINTED -> {
        node.fifo(cdiTemp);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> createdMig(uid).map(c -> c.hasNonNull("gpuInstanceId")).orElse(false));
      }
      case PREPARE_AFTER_CDI_SPEC -> {
        // In the MPS daemon's start (short tool delay) the ids are written: the next write, of
        // "completed", blocks after the spec.
        holdTool(MPS_CONTROL, 1_500);
        call = CompletableFuture.supplyAsync(() -> node.prepareError(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> countLines(toolLog(MPS_CONTROL)) > 0);
        node.fifo(checkpointTemp);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(node.spec(uid)));
      }
      case UNPREPARE_AFTER_CDI_SPEC_REMOVED -> {
        call = CompletableFuture.supplyAsync(() -> node.kubelet().unprepare(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(node.spec(uid)));
      }
      case UNPREPARE_AFTER_COMPUTE_INSTANCE_DESTROYED -> {
        call = CompletableFuture.supplyAsync(() -> node.kubelet().unprepare(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(ciCapability()));
      }
      case UNPREPARE_AFTER_GPU_INSTANCE_DESTROYED -> {
        node.fifo(checkpointTemp);
        call = CompletableFuture.supplyAsync(() -> node.kubelet().unprepare(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> migMode().equals("0"));
      }
      default -> throw new IllegalStateException(step.name());
    }
    node.kill();
    assertThat(call).failsWithin(Duration.ofSeconds(10));
    assertHalfDone(step, uid);
    Files.writeString(config, plainConfig);
    node.removeFifos();

    node.start(); // the start-up reconcile is done once the registration socket is served
    assertThat(adminInstances()).as("the admin's MIG devices").isEqualTo(adminInstances);
    assertEveryGpuInstanceAccountedFor();
    if (step.prepare) {
      // Rolled back before the kubelet could call: nothing of the claim is left.
      assertThat(node.claims().has(uid)).isFalse();
      assertThat(node.spec(uid)).doesNotExist();
      assertThat(giCapability()).doesNotExist();
      assertThat(node.mpsDaemons()).isEmpty();
      assertThat(migMode()).as("MIG mode").isEqualTo(step.migOff ? "0" : "1");
      assertReportedGpu0(
          step.migOff ? "DISABLED" : "ENABLED", step.migOff ? List.of() : List.of(7));

      // The kubelet's retry prepares it from scratch.
      assertThat(node.prepareError(claim)).isEmpty();
      assertThat(node.claims().get(uid).get("state").asString()).isEqualTo("PrepareCompleted");
      assertThat(node.spec(uid)).exists();
      assertThat(ciCapability()).exists();
      assertThat(node.mpsDaemons()).hasSize(step.mps ? 1 : 0);
      assertEveryGpuInstanceAccountedFor();
    } else {
      // The unprepare did not complete: the claim is still prepared until the kubelet's retry.
      assertThat(node.claims().get(uid).get("state").asString()).isEqualTo("PrepareCompleted");
    }
    assertThat(node.kubelet().unprepare(claim)).isEmpty();

    assertThat(node.claims().size()).isZero();
    assertThat(node.spec(uid)).doesNotExist();
    assertThat(giCapability()).doesNotExist();
    assertThat(node.mpsDaemons()).isEmpty();
    assertThat(migMode()).as("MIG mode").isEqualTo(step.migOff ? "0" : "1");
    assertThat(adminInstances()).as("the admin's MIG devices").isEqualTo(adminInstances);
    assertEveryGpuInstanceAccountedFor();
  }

  private static String delays(Step step) {
    String symbol =
        switch (step) {
          case PREPARE_AFTER_INTENT, PREPARE_AFTER_MIG_MODE_ON ->
              "nvmlDeviceCreateGpuInstanceWithPlacement=" + HOLD_MS;
          case PREPARE_AFTER_GPU_INSTANCE -> "nvmlGpuInstanceCreateComputeInstance=" + HOLD_MS;
          case PREPARE_AFTER_COMPUTE_INSTANCE -> "nvmlGpuInstanceCreateComputeInstance=1500";
          case UNPREPARE_AFTER_CDI_SPEC_REMOVED -> "nvmlComputeInstanceDestroy=" + HOLD_MS;
          case UNPREPARE_AFTER_COMPUTE_INSTANCE_DESTROYED -> "nvmlGpuInstanceDestroy=" + HOLD_MS;
          default -> null;
        };
    return symbol == null ? "" : "delay_ms." + symbol + "\n";
  }

  /** What the killed plugin left, before the restart: the step was really reached. */
  private void assertHalfDone(Step step, String uid) throws IOException {
    JsonNode entry = node.claims().get(uid);
    assertThat(entry.get("state").asString())
        .isEqualTo(step.prepare ? "PrepareStarted" : "PrepareCompleted");
    JsonNode created = entry.get("createdMig").get(0);
    assertThat(created.get("device").asString()).isEqualTo(DEVICE);
    assertThat(created.get("enabledMigMode").asBoolean()).isEqualTo(step.migOff);
    boolean idsRecorded = created.hasNonNull("gpuInstanceId");
    switch (step) {
      case PREPARE_AFTER_INTENT -> {
        assertThat(idsRecorded).isFalse();
        assertThat(giCapability()).doesNotExist();
      }
      case PREPARE_AFTER_MIG_MODE_ON -> {
        assertThat(idsRecorded).isFalse();
        assertThat(migMode()).isEqualTo("1");
        assertThat(gpuInstances()).noneMatch(gi -> gi.startsWith("gi 0 "));
      }
      case PREPARE_AFTER_GPU_INSTANCE -> {
        assertThat(idsRecorded).isFalse();
        assertThat(giCapability()).exists();
        assertThat(ciCapability()).doesNotExist();
      }
      case PREPARE_AFTER_COMPUTE_INSTANCE -> {
        assertThat(idsRecorded).isFalse();
        assertThat(migMode()).isEqualTo("1");
        assertThat(ciCapability()).exists();
      }
      case PREPARE_AFTER_IDS_CHECKPOINTED -> {
        assertThat(created.get("gpuInstanceId").asInt()).isEqualTo(GPU_INSTANCE);
        assertThat(ciCapability()).exists();
        assertThat(node.spec(uid)).doesNotExist();
      }
      case PREPARE_AFTER_CDI_SPEC -> {
        assertThat(idsRecorded).isTrue();
        assertThat(node.mpsDaemons()).hasSize(1);
        assertThat(node.spec(uid)).exists();
      }
      case UNPREPARE_AFTER_CDI_SPEC_REMOVED -> {
        assertThat(node.spec(uid)).doesNotExist();
        assertThat(ciCapability()).exists();
      }
      case UNPREPARE_AFTER_COMPUTE_INSTANCE_DESTROYED -> {
        assertThat(node.spec(uid)).doesNotExist();
        assertThat(giCapability()).exists();
        assertThat(ciCapability()).doesNotExist();
      }
      case UNPREPARE_AFTER_GPU_INSTANCE_DESTROYED -> {
        assertThat(node.spec(uid)).doesNotExist();
        assertThat(giCapability()).doesNotExist();
        assertThat(migMode()).isEqualTo("0");
      }
      default -> throw new IllegalStateException(step.name());
    }
  }

  /**
   * The restarted plugin's GpuNode reports GPU 0 as it is after the start-up rollback, not as the
   * killed plugin left it.
   */
  private void assertReportedGpu0(String migMode, List<Integer> gpuInstances) {
    var gpuNodes = api.client().genericKubernetesResources(GpuNodeReporter.GPU_NODES);
    // The status may be written in parts (the GpuNode first, its status next).
    await()
        .atMost(Duration.ofSeconds(15))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              var gpuNode = gpuNodes.withName("node-a").get();
              assertThat(gpuNode).isNotNull();
              JsonNode gpu =
                  json.valueToTree(gpuNode.getAdditionalProperties().get("status"))
                      .get("inventory")
                      .get("gpus")
                      .get(0);
              assertThat(gpu.get("migMode").asString()).as("reported MIG mode").isEqualTo(migMode);
              List<Integer> ids = new ArrayList<>();
              // Left out of the status when empty.
              if (gpu.has("migDevices")) {
                gpu.get("migDevices").forEach(m -> ids.add(m.get("gpuInstanceId").asInt()));
              }
              assertThat(ids).as("reported MIG devices").isEqualTo(gpuInstances);
            });
  }

  /**
   * Every GPU instance on the node is the admin's or one a checkpointed claim recorded (by id, or
   * by profile and placement while only the intent is recorded).
   */
  private void assertEveryGpuInstanceAccountedFor() throws IOException {
    List<JsonNode> recorded = new ArrayList<>();
    node.claims().forEach(entry -> entry.get("createdMig").forEach(recorded::add));
    for (String gi : gpuInstances()) {
      if (adminGpuInstances.contains(gi)) {
        continue;
      }
      // gi <gpu> <id> <profile id> <start> <size>
      String[] f = gi.split(" ");
      String gpuUuid = gpuLine(Integer.parseInt(f[1]))[6];
      assertThat(recorded)
          .as("a checkpointed claim accounts for GPU instance %s", gi)
          .anyMatch(
              c ->
                  c.get("gpuUuid").asString().equals(gpuUuid)
                      && c.get("profileId").asInt() == Integer.parseInt(f[3])
                      && c.get("placement").get("start").asInt() == Integer.parseInt(f[4])
                      && (!c.hasNonNull("gpuInstanceId")
                          || c.get("gpuInstanceId").asInt() == Integer.parseInt(f[2])));
    }
  }

  /** The state file's lines of the admin's GPU and compute instances (GPU instance 7). */
  private List<String> adminInstances() throws IOException {
    return stateLines()
        .filter(l -> l.startsWith("gi ") || l.startsWith("ci "))
        .filter(l -> l.split(" ")[2].equals("7"))
        .toList();
  }

  private List<String> gpuInstances() throws IOException {
    return stateLines().filter(l -> l.startsWith("gi ")).toList();
  }

  /** GPU 0's current MIG mode as the simulator keeps it ("1": on). */
  private String migMode() throws IOException {
    return gpuLine(0)[2];
  }

  /** {@code gpu idx cur pending computeMode timeslice uuid}. */
  private String[] gpuLine(int index) throws IOException {
    return stateLines()
        .filter(l -> l.startsWith("gpu " + index + " "))
        .findFirst()
        .orElseThrow()
        .split(" ");
  }

  private Stream<String> stateLines() throws IOException {
    return Files.readAllLines(root.resolve("var/lib/mock-nvml/state")).stream();
  }

  private Path giCapability() {
    return root.resolve("proc/driver/nvidia/capabilities/gpu0/mig/gi" + GPU_INSTANCE + "/access");
  }

  private Path ciCapability() {
    return root.resolve(
        "proc/driver/nvidia/capabilities/gpu0/mig/gi" + GPU_INSTANCE + "/ci0/access");
  }

  private void awaitEntry(String uid) {
    await().atMost(Duration.ofSeconds(30)).until(() -> createdMig(uid).isPresent());
  }

  private Optional<JsonNode> createdMig(String uid) {
    try {
      JsonNode entry = node.claims().get(uid);
      return entry == null || entry.get("createdMig").isEmpty()
          ? Optional.empty()
          : Optional.of(entry.get("createdMig").get(0));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private void holdTool(String tool, int millis) throws IOException {
    Files.writeString(
        config, Files.readString(config) + "tool_delay_ms." + tool + "=" + millis + "\n");
  }

  private Path toolLog(String tool) {
    return root.resolve("var/log/mock-nvml/" + tool + ".log");
  }

  private static long countLines(Path log) {
    try {
      return Files.exists(log) ? Files.readAllLines(log).size() : 0;
    } catch (IOException e) {
      return 0;
    }
  }
}
