package dev.tessera.plugin.prepare;

import static dev.tessera.plugin.Fixtures.DRIVER;
import static dev.tessera.plugin.Fixtures.NODE;
import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.inventory;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static dev.tessera.plugin.Fixtures.timeSlicing;
import static dev.tessera.plugin.Fixtures.withOneGPlacements;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.config.OpaqueConfigDecoder;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.cdi.DriverRoot;
import dev.tessera.plugin.cdi.NodePaths;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import dev.tessera.plugin.fs.RecordingDisk;
import dev.tessera.plugin.mig.DynamicMig;
import dev.tessera.plugin.mig.FakeMigHardware;
import dev.tessera.plugin.mig.GpuMigState;
import dev.tessera.plugin.mig.MigPlanner;
import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsPaths;
import dev.tessera.plugin.sharing.NvidiaSmi;
import dev.tessera.plugin.sharing.ProcessMpsDaemons;
import dev.tessera.plugin.sharing.RecordingRunner;
import dev.tessera.plugin.sharing.SharingEffects;
import dev.tessera.plugin.sharing.SharingPlanner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class DeviceStateTest {
  @TempDir Path root;
  private final JsonMapper json = JsonMapper.builder().build();
  private final FakeClaimSource claims = new FakeClaimSource();
  private final ClaimRef ref = new ClaimRef("default", "c1", "uid-1");
  private final RecordingRunner runner = new RecordingRunner();
  // GPU 1 is in MIG mode with the 1g.10gb device the inventory fixture describes.
  private final FakeMigHardware migs =
      new FakeMigHardware()
          .gpu("GPU-00000000", MigMode.DISABLED)
          .gpu(
              "GPU-00000001",
              MigMode.ENABLED,
              new GpuMigState.Instance(
                  3,
                  19,
                  new MigPlacement(0, 1),
                  List.of(new GpuMigState.Compute(0, "MIG-0000001"))));
  private NodeInventory nodeInventory = inventory(2);
  private CdiSpecWriter cdi;
  private CheckpointStore store;

  @BeforeEach
  void driverRoot() throws Exception {
    Files.createDirectories(root.resolve("dev"));
    Files.createFile(root.resolve("dev/nvidiactl"));
    Files.createDirectories(root.resolve("proc/driver/nvidia/capabilities/gpu1/mig/gi3/ci0"));
    Files.writeString(
        root.resolve("proc/driver/nvidia/capabilities/gpu1/mig/gi3/access"),
        "DeviceFileMinor: 30\n");
    Files.writeString(
        root.resolve("proc/driver/nvidia/capabilities/gpu1/mig/gi3/ci0/access"),
        "DeviceFileMinor: 31\n");
    cdi = new CdiSpecWriter(root.resolve("cdi"), DRIVER, json);
    store = new CheckpointStore(root.resolve("data/checkpoint.json"), json);
  }

  private MpsPaths mpsPaths() {
    return new MpsPaths(root.resolve("data/mps"));
  }

  /** The plugin's prepare side and its start-up recovery, on one checkpoint and lock. */
  private record Node(DeviceState state, StartupRecovery recovery) {}

  private Node node(String bootId) {
    var tools = new DriverTools(root, runner);
    var paths = NodePaths.forDriverRoot(DriverRoot.at(root));
    var common =
        new CdiSpec.ContainerEdits(
            List.of("NVIDIA_VISIBLE_DEVICES=void"),
            List.of(paths.deviceNode("/dev/nvidiactl")),
            List.of());
    var sharingPlanner = new SharingPlanner();
    var sharing =
        new SharingEffects(new NvidiaSmi(tools), new ProcessMpsDaemons(mpsPaths(), tools));
    var mig = new DynamicMig(new MigPlanner(), migs, () -> nodeInventory);
    var node = new NodeClaims(store, NodeLock.beside(store.file()), bootId);
    var rollback = new ClaimRollback(node, cdi, sharingPlanner, sharing, mig);
    var state =
        new DeviceState(
            claims,
            new ClaimPlanner(
                DRIVER,
                NODE,
                new ConfigResolver(DRIVER, new OpaqueConfigDecoder(), UnaryOperator.identity())),
            () -> nodeInventory,
            new CdiSpecBuilder(DRIVER, common),
            new DeviceEditsResolver(paths, mpsPaths()),
            cdi,
            sharingPlanner,
            sharing,
            mig,
            node,
            rollback);
    return new Node(
        state, new StartupRecovery(node, rollback, cdi, sharingPlanner, sharing, mig, () -> {}));
  }

  private DeviceState state(String bootId) {
    return node(bootId).state();
  }

  @Test
  void prepareWritesTheSpecAndCompletesTheClaim() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var devices = state("b1").prepare(ref);

    assertThat(devices)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.device()).isEqualTo("gpu-0");
              assertThat(d.uuid()).isEqualTo("GPU-00000000");
              assertThat(d.requestNames()).containsExactly("gpu");
              assertThat(d.cdiDeviceIds()).containsExactly("k8s.gpu.tessera.dev/claim=uid-1-gpu-0");
            });
    JsonNode spec = json.readTree(Files.readString(cdi.specFile("uid-1")));
    assertThat(spec.get("devices").get(0).get("name").asString()).isEqualTo("uid-1-gpu-0");
    assertThat(
            spec.get("devices")
                .get(0)
                .get("containerEdits")
                .get("deviceNodes")
                .get(0)
                .get("hostPath")
                .asString())
        .isEqualTo(root.resolve("dev/nvidia0").toString());
    assertThat(store.load("b1").claims().get("uid-1").state())
        .isEqualTo(ClaimState.PrepareCompleted);
    assertThat(claims.reported.get("uid-1")).isEqualTo(devices);
  }

  @Test
  void readersTakeTheCheckpointWithoutWaitingForAPrepareInProgress() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var state = state("b1");
    var inPrepare = new java.util.concurrent.CountDownLatch(1);
    var release = new java.util.concurrent.CountDownLatch(1);
    claims.duringGet =
        () -> {
          inPrepare.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    var prepare =
        java.util.concurrent.Executors.newSingleThreadExecutor().submit(() -> state.prepare(ref));
    inPrepare.await();
    try {
      // The prepare holds the node lock while it asks the API server for the claim.
      var read =
          java.util.concurrent.CompletableFuture.supplyAsync(state::checkpoint)
              .get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(read.claims()).isEmpty();
    } finally {
      release.countDown();
    }
    prepare.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(state.checkpoint().claims()).containsKey("uid-1");
  }

  @Test
  void aPreparedClaimGetsTheSameAnswerWithoutAskingTheApiServer() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var first = state("b1").prepare(ref);
    claims.claims.clear();
    var restarted = state("b1");
    assertThat(restarted.prepare(ref)).isEqualTo(first);
    assertThat(claims.gets).isEqualTo(1);
  }

  @Test
  void aClaimStartedBeforeACrashIsRolledBackAndRedone() throws Exception {
    var stale =
        new PreparedDevice(
            List.of("gpu"),
            NODE,
            "gpu-1",
            List.of("x"),
            "GPU-00000001",
            SharingStrategy.EXCLUSIVE,
            null);
    store.save(
        PreparedClaims.empty("b1")
            .with(
                "uid-1",
                new ClaimEntry(ClaimState.PrepareStarted, "default", "c1", List.of(stale))),
        Durability.DURABLE);
    Files.createDirectories(root.resolve("cdi"));
    Files.writeString(cdi.specFile("uid-1"), "{half written by the crashed process}");
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));

    var devices = state("b1").prepare(ref);

    assertThat(devices).extracting(PreparedDevice::device).containsExactly("gpu-0");
    assertThat(Files.readString(cdi.specFile("uid-1"))).contains("uid-1-gpu-0");
    assertThat(store.load("b1").claims().get("uid-1").state())
        .isEqualTo(ClaimState.PrepareCompleted);
  }

  @Test
  void afterARebootAPreparedClaimIsPreparedAgain() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    state("b1").prepare(ref);
    Files.delete(cdi.specFile("uid-1")); // /var/run is a tmpfs: gone after the reboot

    state("b2").prepare(ref);

    assertThat(cdi.specFile("uid-1")).exists();
    assertThat(claims.gets).isEqualTo(2);
    assertThat(store.load("b2").bootId()).isEqualTo("b2");
  }

  @Test
  void aFailedPrepareLeavesNoSpecAndNoEntry() throws Exception {
    // The driver announces no capability node for this MIG device's compute instance.
    Files.delete(root.resolve("proc/driver/nvidia/capabilities/gpu1/mig/gi3/ci0/access"));
    claims.put(claim("uid-1", "c1", List.of(result("mig", "gpu-1-mig-1g10gb-0")), List.of()));
    var state = state("b1");

    assertThatThrownBy(() -> state.prepare(ref))
        .hasMessageContaining("no capability node for compute instance 0");

    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(store.load("b1").claims()).isEmpty();
    assertThat(claims.reported).isEmpty();
  }

  @Test
  void aMigDeviceBringsItsCapabilityNodes() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("mig", "gpu-1-mig-1g10gb-0")), List.of()));
    state("b1").prepare(ref);
    JsonNode nodes =
        json.readTree(Files.readString(cdi.specFile("uid-1")))
            .get("devices")
            .get(0)
            .get("containerEdits")
            .get("deviceNodes");
    assertThat(nodes.findValuesAsString("path"))
        .containsExactly(
            "/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap30", "/dev/nvidia-caps/nvidia-cap31");
  }

  @Test
  void aRehearsalAnswersWhatThePrepareWouldButWritesAppliesAndReportsNothing() throws Exception {
    var sample =
        claim(
            "uid-1",
            "c1",
            List.of(result("gpu", "gpu-0")),
            List.of(config("FromClaim", List.of("gpu"), timeSlicing("Long"))));
    var state = state("b1");

    var rehearsed = state.rehearse(ref, sample);

    assertThat(runner.calls).isEmpty();
    assertThat(cdi.claimUidsWithSpecs()).isEmpty();
    assertThat(store.file()).doesNotExist();
    assertThat(state.checkpoint().claims()).isEmpty();
    assertThat(claims.reported).isEmpty();
    assertThat(claims.gets).isZero();
    claims.put(sample);
    assertThat(state.prepare(ref)).isEqualTo(rehearsed);
  }

  @Test
  void aRehearsalIsPlannedAsIfNoClaimHeldTheNodesDevices() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var state = state("b1");
    state.prepare(ref);
    var sample = claim("uid-2", "c2", List.of(result("gpu", "gpu-0")), List.of());

    assertThat(state.rehearse(ref2, sample))
        .singleElement()
        .satisfies(d -> assertThat(d.device()).isEqualTo("gpu-0"));
    assertThat(store.load("b1").claims()).containsOnlyKeys("uid-1");
    assertThat(cdi.claimUidsWithSpecs()).containsExactly("uid-1");
  }

  @Test
  void aRehearsalOfAMigDeviceThatExistsAnswersWhatThePrepareWouldAndWritesNothing()
      throws Exception {
    var sample = claim("uid-1", "c1", List.of(result("mig", "gpu-1-mig-1g10gb-0")), List.of());
    var state = state("b1");

    var rehearsed = state.rehearse(ref, sample);

    assertThat(migs.calls).isEmpty();
    assertThat(cdi.claimUidsWithSpecs()).isEmpty();
    assertThat(store.file()).doesNotExist();
    claims.put(sample);
    assertThat(state.prepare(ref)).isEqualTo(rehearsed).isNotEmpty();
  }

  @Test
  void aRehearsalMakesNoMigDevice() throws Exception {
    nodeInventory = withOneGPlacements(inventory(2));
    var sample = claim("uid-1", "c1", List.of(result("mig", "gpu-0-mig-1g10gb-3")), List.of());

    assertThat(state("b1").rehearse(ref, sample)).isEmpty();

    assertThat(migs.calls).isEmpty();
    assertThat(cdi.claimUidsWithSpecs()).isEmpty();
    assertThat(store.file()).doesNotExist();
  }

  @Test
  void aMissingClaimIsAnErrorThatLeavesNothing() {
    var state = state("b1");
    assertThatThrownBy(() -> state.prepare(ref))
        .hasMessageContaining("not found in the API server");
    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(state.checkpoint().claims()).isEmpty();
  }

  @Test
  void anApiServerAwayFailsThePrepareNamingTheClaimAndLeavesNothingForTheRetry() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var state = state("b1");
    claims.unreachable = true;
    assertThatThrownBy(() -> state.prepare(ref))
        .hasMessageContaining("cannot read claim")
        .hasMessageContaining("c1")
        .hasMessageContaining("API server");
    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(state.checkpoint().claims()).isEmpty();
    // The kubelet's retry, once the API server is back, prepares it.
    claims.unreachable = false;
    assertThat(state.prepare(ref)).hasSize(1);
    assertThat(cdi.specFile("uid-1")).exists();
  }

  @Test
  void anUnprepareNeedsNoApiServer() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var state = state("b1");
    state.prepare(ref);
    claims.unreachable = true;
    int gets = claims.gets;

    state.unprepare(ref);

    assertThat(claims.gets).as("GETs during the unprepare").isEqualTo(gets);
    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(store.load("b1").claims()).isEmpty();
  }

  @Test
  void unprepareUndoesEverythingAndForgetsTheClaim() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var state = state("b1");
    state.prepare(ref);
    claims.claims.clear(); // already deleted from the API server

    state.unprepare(ref);

    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(store.load("b1").claims()).isEmpty();
    assertThat(claims.cleared).containsExactly("uid-1");
    state.unprepare(ref); // again: nothing to do, no error
  }

  @Test
  void specsOfClaimsNobodyKnowsAreSweptAtStart() throws Exception {
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    var node = node("b1");
    node.state().prepare(ref);
    Files.writeString(cdi.specFile("uid-orphan"), "{}");

    node.recovery().recover();

    assertThat(cdi.claimUidsWithSpecs()).containsExactly("uid-1");
  }

  @Test
  void aClaimWithoutDeviceWorkRecordsOnlyItsResultAndOneWithDeviceWorkItsIntentFirst()
      throws Exception {
    var disk = new RecordingDisk();
    store = new CheckpointStore(root.resolve("data/checkpoint.json"), json, disk);
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of()));
    putShared("uid-2", "c2", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    var state = state("b1");

    state.prepare(ref);
    var wholeGpu = disk.written();
    var wholeGpuSyncs = disk.syncedDirectories();
    disk.clear();
    state.unprepare(ref);
    var wholeGpuGone = disk.syncedDirectories();
    disk.clear();
    state.prepare(ref2);
    var mps = disk.written();
    var mpsSyncs = disk.syncedDirectories();
    disk.clear();
    state.unprepare(ref2);

    assertThat(wholeGpu).hasSize(1);
    // Its result need not survive a power loss: the next boot rolls the claim back all the same.
    assertThat(wholeGpuSyncs).isEmpty();
    assertThat(wholeGpuGone).isEmpty();
    // The MPS daemon is device work: started (durable), then completed.
    assertThat(mps).hasSize(2);
    assertThat(mpsSyncs).containsExactly(store.file().getParent());
    // It made no MIG device: its entry goes like the whole GPU's.
    assertThat(disk.written()).hasSize(1);
    assertThat(disk.syncedDirectories()).isEmpty();
    assertThat(store.load("b1").claims()).isEmpty();
  }

  @Test
  void theEntryOfAClaimThatMadeMigDevicesGoesDurably() throws Exception {
    var disk = new RecordingDisk();
    store = new CheckpointStore(root.resolve("data/checkpoint.json"), json, disk);
    var made =
        new CreatedMig(
            "GPU-00000001",
            "gpu-1-mig-1g10gb-0",
            19,
            "1g.10gb",
            new MigPlacement(0, 1),
            3,
            0,
            "MIG-0000001",
            false);
    store.save(
        PreparedClaims.empty("b1")
            .with(
                "uid-1",
                new ClaimEntry(
                    ClaimState.PrepareCompleted, "default", "c1", List.of(), List.of(made))),
        Durability.DURABLE);
    disk.clear();

    state("b1").unprepare(ref);

    assertThat(migs.instances.get("GPU-00000001")).isEmpty();
    assertThat(migs.calls).containsExactly("destroy gpu-1-mig-1g10gb-0");
    assertThat(store.load("b1").claims()).isEmpty();
    assertThat(disk.syncedDirectories()).containsExactly(store.file().getParent());
  }

  private final ClaimRef ref2 = new ClaimRef("default", "c2", "uid-2");

  private void putShared(String uid, String name, String device, Map<String, Object> params) {
    claims.put(
        claim(
            uid,
            name,
            List.of(result("gpu", device)),
            List.of(config("FromClaim", List.of("gpu"), params))));
  }

  @Test
  void timeSliceIsSetByTheFirstClaimAndRestoredAfterTheLast() throws Exception {
    putShared("uid-1", "c1", "gpu-0", timeSlicing("Long"));
    putShared("uid-2", "c2", "gpu-0", timeSlicing("Long"));
    var state = state("b1");

    state.prepare(ref);
    state.prepare(ref2);
    state.unprepare(ref);
    assertThat(runner.of("nvidia-smi"))
        .containsExactly(
            "-i GPU-00000000 -c DEFAULT", "compute-policy -i GPU-00000000 --set-timeslice 3");
    state.unprepare(ref2);

    assertThat(runner.of("nvidia-smi"))
        .endsWith("-i GPU-00000000 -c DEFAULT", "compute-policy -i GPU-00000000 --set-timeslice 0");
  }

  @Test
  void aConflictingIntervalChangesNothing() throws Exception {
    putShared("uid-1", "c1", "gpu-0", timeSlicing("Short"));
    putShared("uid-2", "c2", "gpu-0", timeSlicing("Long"));
    var state = state("b1");
    state.prepare(ref);
    int calls = runner.calls.size();

    assertThatThrownBy(() -> state.prepare(ref2))
        .isInstanceOf(PrepareException.class)
        .hasMessageContaining("interval Long")
        .hasMessageContaining("interval Short");
    assertThat(runner.calls).hasSize(calls);
    assertThat(cdi.specFile("uid-2")).doesNotExist();
    assertThat(store.load("b1").claims()).containsOnlyKeys("uid-1");
  }

  @Test
  void mpsStartsOneDaemonPerDeviceAndGivesContainersItsPipeAndLimits() throws Exception {
    putShared("uid-1", "c1", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    putShared("uid-2", "c2", "gpu-0", mps("GpuConfig", 50, "1536Mi"));
    var state = state("b1");

    state.prepare(ref);
    state.prepare(ref2);

    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d");
    assertThat(runner.of("nvidia-smi")).containsExactly("-i GPU-00000000 -c EXCLUSIVE_PROCESS");
    JsonNode edits =
        json.readTree(Files.readString(cdi.specFile("uid-2")))
            .get("devices")
            .get(0)
            .get("containerEdits");
    assertThat(edits.get("env").toString())
        .isEqualTo(
            "[\"CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps\",\"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50\","
                + "\"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1536M\"]");
    assertThat(edits.get("mounts").get(0).get("hostPath").asString())
        .isEqualTo(mpsPaths().pipeDir("GPU-00000000").toString());
    assertThat(edits.get("mounts").get(0).get("containerPath").asString())
        .isEqualTo("/tmp/nvidia-mps");
    assertThat(edits.get("mounts").get(1).get("containerPath").asString()).isEqualTo("/dev/shm");

    state.unprepare(ref);
    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d");
    state.unprepare(ref2);
    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d", "| quit");
    assertThat(runner.of("nvidia-smi")).endsWith("-i GPU-00000000 -c DEFAULT");
    assertThat(mpsPaths().deviceDir("GPU-00000000")).doesNotExist();
  }

  @Test
  void aDaemonThatCannotStartRollsTheClaimBack() throws Exception {
    putShared("uid-1", "c1", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    runner.failOn("-d");
    var state = state("b1");

    assertThatThrownBy(() -> state.prepare(ref))
        .hasMessageContaining("device gpu-0: cannot start MPS control daemon");

    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(store.load("b1").claims()).isEmpty();
    assertThat(runner.of("nvidia-smi")).endsWith("-i GPU-00000000 -c DEFAULT");
  }

  @Test
  void aRestartFindsTheDaemonAgainAndStopsOnesNoClaimUses() throws Exception {
    putShared("uid-1", "c1", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    state("b1").prepare(ref);
    Files.createDirectories(mpsPaths().pipeDir("GPU-leftover"));
    Files.writeString(
        mpsPaths().pidFile("GPU-leftover"), Long.toString(ProcessHandle.current().pid()));

    node("b1").recovery().recover();

    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d", "| quit");
    assertThat(runner.calls)
        .filteredOn(c -> c.contains("quit"))
        .hasSize(1); // the leftover, not ours
    assertThat(mpsPaths().deviceDir("GPU-leftover")).doesNotExist();
    assertThat(mpsPaths().pidFile("GPU-00000000")).exists();
    // The leftover's GPU goes back to the default compute mode; ours stays exclusive.
    assertThat(runner.of("nvidia-smi"))
        .containsExactly("-i GPU-00000000 -c EXCLUSIVE_PROCESS", "-i GPU-leftover -c DEFAULT");
  }

  @Test
  void aRepeatedPrepareStartsADaemonThatDiedSince() throws Exception {
    putShared("uid-1", "c1", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    var state = state("b1");
    var first = state.prepare(ref);
    assertThat(state.prepare(ref)).isEqualTo(first); // running: nothing is run again
    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d");

    Files.writeString(mpsPaths().pidFile("GPU-00000000"), "999999999"); // no such process

    assertThat(state.prepare(ref)).isEqualTo(first);
    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d", "-d");
    assertThat(mpsPaths().pidFile("GPU-00000000"))
        .hasContent(Long.toString(ProcessHandle.current().pid()));
  }

  @Test
  void aRestartRollsBackAClaimWhosePrepareDidNotComplete() throws Exception {
    // As if the plugin died after starting the daemon and writing the spec, before "completed".
    putShared("uid-1", "c1", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    putShared("uid-2", "c2", "gpu-1-mig-1g10gb-0", mps("MigDeviceConfig", 30, "5Gi"));
    var state = state("b1");
    state.prepare(ref);
    state.prepare(ref2);
    PreparedClaims done = store.load("b1");
    store.save(
        done.with("uid-1", done.claims().get("uid-1").withState(ClaimState.PrepareStarted)),
        Durability.DURABLE);
    runner.calls.clear();

    node("b1").recovery().recover();

    assertThat(store.load("b1").claims()).containsOnlyKeys("uid-2");
    assertThat(cdi.specFile("uid-1")).doesNotExist();
    assertThat(cdi.specFile("uid-2")).exists();
    assertThat(mpsPaths().deviceDir("GPU-00000000")).doesNotExist();
    assertThat(mpsPaths().pidFile("MIG-0000001")).exists(); // the completed claim's daemon stays
    assertThat(runner.calls)
        .containsExactly("nvidia-cuda-mps-control | quit", "nvidia-smi -i GPU-00000000 -c DEFAULT");
  }

  private final ClaimRef adminRef = new ClaimRef("default", "watch", "uid-admin");

  private void putAdmin(String... devices) {
    claims.put(
        claim(
            "uid-admin",
            "watch",
            java.util.Arrays.stream(devices)
                .map(
                    d ->
                        new io.fabric8.kubernetes.api.model.resource.v1
                                .DeviceRequestAllocationResultBuilder(result("all", d))
                            .withAdminAccess(true)
                            .build())
                .toList(),
            List.of()));
  }

  @Test
  void adminAccessIsHandedOverBesideOtherClaimsAndUndoesNothingOfTheirs() throws Exception {
    Files.createDirectories(root.resolve("proc/driver/nvidia/capabilities/mig"));
    Files.writeString(
        root.resolve("proc/driver/nvidia/capabilities/mig/monitor"), "DeviceFileMinor: 2\n");
    putShared("uid-1", "c1", "gpu-0", mps("GpuConfig", 30, "20Gi"));
    claims.put(claim("uid-2", "c2", List.of(result("mig", "gpu-1-mig-1g10gb-0")), List.of()));
    putAdmin("gpu-0", "gpu-1-mig-1g10gb-0");
    var state = state("b1");
    state.prepare(ref);
    state.prepare(ref2);
    int calls = runner.calls.size();

    var devices = state.prepare(adminRef);

    assertThat(devices).allSatisfy(d -> assertThat(d.adminAccess()).isTrue());
    assertThat(runner.calls).hasSize(calls);
    assertThat(migs.calls).isEmpty();
    JsonNode specDevices =
        json.readTree(Files.readString(cdi.specFile("uid-admin"))).get("devices");
    assertThat(
            specDevices.get(0).get("containerEdits").get("deviceNodes").findValuesAsString("path"))
        .containsExactly("/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap2");
    assertThat(specDevices.get(0).get("containerEdits").get("env").toString())
        .isEqualTo("[\"TESSERA_ADMIN_ACCESS=true\"]");
    assertThat(
            specDevices.get(1).get("containerEdits").get("deviceNodes").findValuesAsString("path"))
        .containsExactly(
            "/dev/nvidia1",
            "/dev/nvidia-caps/nvidia-cap30",
            "/dev/nvidia-caps/nvidia-cap31",
            "/dev/nvidia-caps/nvidia-cap2");

    state.unprepare(adminRef);
    assertThat(runner.calls).hasSize(calls);
    assertThat(store.load("b1").claims()).containsOnlyKeys("uid-1", "uid-2");
    assertThat(cdi.specFile("uid-1")).exists();
    assertThat(cdi.specFile("uid-2")).exists();

    // The other way round: the MPS claim goes while the admin claim holds its GPU.
    state.prepare(adminRef);
    state.unprepare(ref);
    assertThat(runner.of("nvidia-cuda-mps-control")).containsExactly("-d", "| quit");
    assertThat(store.load("b1").claims()).containsOnlyKeys("uid-2", "uid-admin");
    assertThat(cdi.specFile("uid-admin")).exists();
  }
}
