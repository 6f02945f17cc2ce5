package dev.tessera.plugin.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.nvml.NvmlHandle.ComputeInstance;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.NvmlHandle.EventSet;
import dev.tessera.plugin.nvml.NvmlHandle.GpuInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JNA binding against the NVML simulator in {@code hack/mock-nvml}. */
class JnaNvmlIT {
  private static final String H100 = "H100-SXM5-80GB";
  private static final String A100 = "A100-SXM4-40GB";
  private static final int PROFILE_2G_20GB = 14;

  @TempDir Path tmp;

  private MockNvmlRoot setup(String name, String profile, int gpus, String seed, String... more) {
    String[] args =
        Stream.concat(
                Stream.of("--profile", profile, "--gpus", String.valueOf(gpus), "--seed", seed),
                Stream.of(more))
            .toArray(String[]::new);
    return MockNvmlRoot.setup(tmp.resolve(name), args);
  }

  private static NodeInventory discover(MockNvmlRoot root) {
    try (Nvml nvml = root.open()) {
      return new GpuDiscovery(nvml).discover();
    }
  }

  @Test
  void h100NodeInventory() {
    NodeInventory inventory = discover(setup("h100", H100, 8, "node-a", "--mig-enabled", "all"));

    assertThat(inventory.driverVersion()).isEqualTo("580.95.05");
    assertThat(inventory.cudaDriverVersion()).isEqualTo("13.0");
    assertThat(inventory.nvmlVersion()).isNotBlank();
    assertThat(inventory.gpus()).hasSize(8);
    assertThat(inventory.gpus()).extracting(Gpu::minor).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(inventory.gpus()).extracting(Gpu::uuid).doesNotHaveDuplicates();
    assertThat(inventory.gpus())
        .allSatisfy(
            gpu -> {
              assertThat(gpu.uuid()).startsWith("GPU-");
              assertThat(gpu.productName()).isEqualTo("NVIDIA H100 80GB HBM3");
              assertThat(gpu.brand()).isEqualTo("NVIDIA");
              assertThat(gpu.architecture()).isEqualTo("Hopper");
              assertThat(gpu.cudaComputeCapability()).isEqualTo("9.0");
              assertThat(gpu.memoryBytes()).isEqualTo(81559L << 20);
              assertThat(gpu.pciBusId()).matches("[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\\.0");
              assertThat(gpu.migMode()).isEqualTo(MigMode.ENABLED);
              assertThat(gpu.migDevices()).isEmpty();
              assertThat(gpu.migProfiles())
                  .extracting(MigProfile::name)
                  .containsExactlyInAnyOrder(
                      "1g.10gb",
                      "1g.10gb+me",
                      "1g.20gb",
                      "2g.20gb",
                      "3g.40gb",
                      "4g.40gb",
                      "7g.80gb");
              assertThat(gpu.migProfiles().stream().mapToInt(p -> p.placements().size()).sum())
                  .isEqualTo(25);
            });
    assertThat(inventory.gpus()).extracting(Gpu::pciBusId).doesNotHaveDuplicates();
    Gpu first = inventory.gpus().getFirst();
    assertThat(first.migProfile(PROFILE_2G_20GB).orElseThrow().placements())
        .containsExactly(new MigPlacement(0, 2), new MigPlacement(2, 2), new MigPlacement(4, 2));
    assertThat(first.migProfile(0).orElseThrow().memoryBytes()).isEqualTo(81152L << 20);
  }

  @Test
  void uuidsAreStablePerSeedAndDifferAcrossSeeds() {
    List<String> a = uuids(discover(setup("a", H100, 8, "node-a")));
    List<String> again = uuids(discover(setup("a-again", H100, 8, "node-a")));
    List<String> b = uuids(discover(setup("b", H100, 8, "node-b")));

    assertThat(again).isEqualTo(a);
    assertThat(b).doesNotContainAnyElementsOf(a);
  }

  private static List<String> uuids(NodeInventory inventory) {
    return inventory.gpus().stream().map(Gpu::uuid).toList();
  }

  @Test
  void a100Inventory() {
    NodeInventory inventory = discover(setup("a100", A100, 2, "node-a", "--mig-enabled", "0"));

    Gpu mig = inventory.gpus().get(0);
    assertThat(mig.architecture()).isEqualTo("Ampere");
    assertThat(mig.cudaComputeCapability()).isEqualTo("8.0");
    assertThat(mig.productName()).isEqualTo("NVIDIA A100-SXM4-40GB");
    assertThat(mig.migMode()).isEqualTo(MigMode.ENABLED);
    assertThat(mig.migProfiles())
        .extracting(MigProfile::name)
        .contains("1g.5gb", "1g.5gb+me", "3g.20gb", "7g.40gb");
    assertThat(mig.migProfile(19).orElseThrow())
        .satisfies(
            p -> {
              assertThat(p.name()).isEqualTo("1g.5gb");
              assertThat(p.sliceCount()).isEqualTo(1);
              assertThat(p.instanceCount()).isEqualTo(7);
              assertThat(p.multiprocessors()).isEqualTo(14);
              assertThat(p.memoryBytes()).isEqualTo(4864L << 20);
              assertThat(p.placements()).hasSize(7);
            });
    assertThat(inventory.gpus().get(1).migMode()).isEqualTo(MigMode.DISABLED);
  }

  @Test
  void h200Inventory() {
    Gpu gpu =
        discover(setup("h200", "H200-SXM5-141GB", 1, "node-a", "--mig-enabled", "all"))
            .gpus()
            .getFirst();

    assertThat(gpu.productName()).isEqualTo("NVIDIA H200");
    assertThat(gpu.architecture()).isEqualTo("Hopper");
    assertThat(gpu.migProfiles())
        .extracting(MigProfile::name)
        .contains("1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb");
    assertThat(gpu.migProfiles().stream().mapToInt(p -> p.placements().size()).sum()).isEqualTo(25);
  }

  @Test
  void l40sHasNoMig() {
    NodeInventory inventory = discover(setup("l40s", "L40S", 2, "node-a"));

    assertThat(inventory.gpus())
        .allSatisfy(
            gpu -> {
              assertThat(gpu.architecture()).isEqualTo("Ada Lovelace");
              assertThat(gpu.cudaComputeCapability()).isEqualTo("8.9");
              assertThat(gpu.migMode()).isEqualTo(MigMode.UNSUPPORTED);
              assertThat(gpu.migProfiles()).isEmpty();
              assertThat(gpu.migDevices()).isEmpty();
            });
  }

  @Test
  void staticMigDevicesShowUpWithProfilePlacementAndUuid() {
    MockNvmlRoot root =
        setup("static", H100, 2, "node-a", "--mig-enabled", "0", "--mig", "0:9@4,19@0,14@2");

    Gpu gpu = discover(root).gpus().getFirst();

    assertThat(gpu.migDevices())
        .extracting(MigDevice::profile, MigDevice::profileId, MigDevice::placement)
        .containsExactly(
            tuple("1g.10gb", 19, new MigPlacement(0, 1)),
            tuple("2g.20gb", 14, new MigPlacement(2, 2)),
            tuple("3g.40gb", 9, new MigPlacement(4, 4)));
    assertThat(gpu.migDevices())
        .allSatisfy(
            d -> {
              assertThat(d.uuid()).startsWith("MIG-").isNotEqualTo(gpu.uuid());
              assertThat(d.memoryBytes())
                  .isEqualTo(gpu.migProfile(d.profileId()).orElseThrow().memoryBytes());
            });
    assertThat(gpu.migDevices()).extracting(MigDevice::uuid).doesNotHaveDuplicates();
    assertThat(gpu.migDevices()).extracting(MigDevice::gpuInstanceId).doesNotHaveDuplicates();
    assertThat(discover(root).gpus().getFirst().migDevices()).isEqualTo(gpu.migDevices());

    try (Nvml nvml = root.open()) {
      MigDevice device = gpu.migDevices().getFirst();
      Device gpuHandle = nvml.deviceByIndex(0);
      Device migHandle =
          IntStream.range(0, nvml.maxMigDeviceCount(gpuHandle))
              .mapToObj(i -> nvml.migDeviceByIndex(gpuHandle, i))
              .flatMap(Optional::stream)
              .filter(m -> nvml.uuid(m).equals(device.uuid()))
              .findFirst()
              .orElseThrow();
      assertThat(nvml.gpuInstanceId(migHandle)).isEqualTo(device.gpuInstanceId());
      assertThat(nvml.computeInstanceId(migHandle)).isEqualTo(device.computeInstanceId());
    }
  }

  @Test
  void createAndDestroyMigDevicesThroughThePort() {
    MockNvmlRoot root = setup("dynamic", H100, 1, "node-a", "--mig-enabled", "all");
    Placement placement;
    try (Nvml nvml = root.open()) {
      Device gpu = nvml.deviceByIndex(0);
      placement = nvml.gpuInstancePossiblePlacements(gpu, PROFILE_2G_20GB).get(1);
      GpuInstance gi = nvml.createGpuInstance(gpu, PROFILE_2G_20GB, placement);
      GpuInstanceInfo info = nvml.gpuInstanceInfo(gi);
      assertThat(info.profileId()).isEqualTo(PROFILE_2G_20GB);
      assertThat(info.placement()).isEqualTo(placement);
      ComputeInstanceProfileInfo ciProfile = fullComputeInstance(nvml, gi, 2);
      ComputeInstance ci = nvml.createComputeInstance(gi, ciProfile.id());
      assertThat(nvml.computeInstanceInfo(ci).profileId()).isEqualTo(ciProfile.id());
      assertThat(nvml.computeInstances(gi, ciProfile.id())).hasSize(1);
      assertThat(nvml.gpuInstances(gpu, PROFILE_2G_20GB)).hasSize(1);
      assertThat(nvml.gpuInstanceById(gpu, info.id())).isEqualTo(gi);

      assertThat(new GpuDiscovery(nvml).discover().gpus().getFirst().migDevices())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.profile()).isEqualTo("2g.20gb");
                assertThat(d.gpuInstanceId()).isEqualTo(info.id());
                assertThat(d.placement())
                    .isEqualTo(new MigPlacement(placement.start(), placement.size()));
              });
    }

    MigDevice created = discover(root).gpus().getFirst().migDevices().getFirst();
    assertThat(created.placement().start()).isEqualTo(placement.start());

    try (Nvml nvml = root.open()) {
      Device gpu = nvml.deviceByIndex(0);
      GpuInstance gi = nvml.gpuInstances(gpu, PROFILE_2G_20GB).getFirst();
      ComputeInstanceProfileInfo ciProfile = fullComputeInstance(nvml, gi, 2);
      assertThatThrownBy(() -> nvml.destroyGpuInstance(gi))
          .isInstanceOfSatisfying(
              NvmlException.class, e -> assertThat(e.is(NvmlReturn.NVML_ERROR_IN_USE)).isTrue());
      for (ComputeInstance ci : nvml.computeInstances(gi, ciProfile.id())) {
        nvml.destroyComputeInstance(ci);
      }
      nvml.destroyGpuInstance(gi);
      assertThat(nvml.gpuInstances(gpu, PROFILE_2G_20GB)).isEmpty();
    }

    assertThat(discover(root).gpus().getFirst().migDevices()).isEmpty();
  }

  private static ComputeInstanceProfileInfo fullComputeInstance(
      Nvml nvml, GpuInstance gi, int slices) {
    return IntStream.range(0, Nvml.COMPUTE_INSTANCE_PROFILE_COUNT)
        .mapToObj(i -> nvml.computeInstanceProfileInfo(gi, i))
        .flatMap(Optional::stream)
        .filter(p -> p.sliceCount() == slices)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void migModeAndComputeModeCanBeSet() {
    MockNvmlRoot root = setup("modes", A100, 1, "node-a");
    try (JnaNvml nvml = root.open()) {
      Device gpu = nvml.deviceByIndex(0);
      assertThat(nvml.migMode(gpu)).contains(new MigModeState(false, false));
      nvml.setMigMode(gpu, true);
      assertThat(nvml.migMode(gpu).orElseThrow().pendingEnabled()).isTrue();

      // Not part of the port (the plugin uses nvidia-smi): the simulator's own calls.
      var computeMode = SimulatorComputeMode.of(nvml);
      assertThat(computeMode.get(gpu)).isEqualTo(ComputeMode.DEFAULT);
      computeMode.set(gpu, ComputeMode.EXCLUSIVE_PROCESS);
      assertThat(computeMode.get(gpu)).isEqualTo(ComputeMode.EXCLUSIVE_PROCESS);
    }
  }

  @Test
  void anInjectedFaultIsAnNvmlExceptionWithCodeNameAndCall() throws Exception {
    MockNvmlRoot root = setup("faults", H100, 1, "node-a");
    root.fault("nvmlDeviceGetUUID 15 1");
    try (Nvml nvml = root.open()) {
      Device gpu = nvml.deviceByIndex(0);

      assertThatThrownBy(() -> nvml.uuid(gpu))
          .isInstanceOfSatisfying(
              NvmlException.class,
              e -> {
                assertThat(e.code()).isEqualTo(15);
                assertThat(e.codeName()).isEqualTo("NVML_ERROR_GPU_IS_LOST");
                assertThat(e.call()).isEqualTo("nvmlDeviceGetUUID");
                assertThat(e.description()).isNotBlank();
              })
          .hasMessageStartingWith("nvmlDeviceGetUUID failed: NVML_ERROR_GPU_IS_LOST (15): ");
      assertThat(nvml.uuid(gpu)).startsWith("GPU-");
    }
  }

  @Test
  void unsupportedAndNotFoundReadAsEmpty() {
    MockNvmlRoot root = setup("empty", "L40S", 1, "node-a");
    try (Nvml nvml = root.open()) {
      Device gpu = nvml.deviceByIndex(0);
      assertThat(nvml.migMode(gpu)).isEmpty();
      assertThat(nvml.gpuInstanceProfileInfo(gpu, 0)).isEmpty();
      assertThatThrownBy(() -> nvml.deviceByUuid("GPU-00000000-0000-0000-0000-000000000000"))
          .isInstanceOfSatisfying(
              NvmlException.class, e -> assertThat(e.is(NvmlReturn.NVML_ERROR_NOT_FOUND)).isTrue());
      assertThat(nvml.deviceByUuid(nvml.uuid(gpu))).isEqualTo(gpu);
    }
  }

  @Test
  void xidEventsAreDeliveredAndAWaitTimesOutEmpty() throws Exception {
    MockNvmlRoot root = setup("events", H100, 2, "node-a");
    try (Nvml nvml = root.open()) {
      Device gpu1 = nvml.deviceByIndex(1);
      assertThat(nvml.supportedEventTypes(gpu1) & NvmlEventType.HEALTH)
          .isEqualTo(NvmlEventType.HEALTH);
      EventSet set = nvml.createEventSet();
      try {
        nvml.registerEvents(gpu1, NvmlEventType.HEALTH, set);

        assertThat(nvml.waitForEvent(set, Duration.ofMillis(100))).isEmpty();

        root.event("0 xid 43");
        root.event("1 xid 48");
        root.event("1 gpu_lost");
        assertThat(nvml.waitForEvent(set, Duration.ofSeconds(5)))
            .hasValueSatisfying(
                e -> {
                  assertThat(e.device()).isEqualTo(gpu1);
                  assertThat(e.is(NvmlEventType.XID_CRITICAL_ERROR)).isTrue();
                  assertThat(e.eventData()).isEqualTo(48);
                  assertThat(e.gpuInstance()).isEmpty();
                });
        assertThat(nvml.waitForEvent(set, Duration.ofSeconds(5)))
            .hasValueSatisfying(e -> assertThat(e.eventData()).isEqualTo(79));
        assertThat(nvml.waitForEvent(set, Duration.ofMillis(50))).isEmpty();
      } finally {
        nvml.freeEventSet(set);
      }
    }
  }

  @Test
  void anEventWaitDoesNotHoldUpOtherCalls() throws Exception {
    MockNvmlRoot root = setup("wait", H100, 2, "node-a", "--mig-enabled", "all");
    try (Nvml nvml = root.open();
        var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      EventSet set = nvml.createEventSet();
      nvml.registerEvents(nvml.deviceByIndex(0), NvmlEventType.XID_CRITICAL_ERROR, set);
      var waiting = executor.submit(() -> nvml.waitForEvent(set, Duration.ofSeconds(20)));

      // Were the wait holding the lock, this discovery would only run after its 20 s timeout.
      assertThat(new GpuDiscovery(nvml).discover().gpus()).hasSize(2);
      root.event("0 xid 31");

      assertThat(waiting.get(10, TimeUnit.SECONDS))
          .hasValueSatisfying(e -> assertThat(e.eventData()).isEqualTo(31));
      nvml.freeEventSet(set);
    }
  }

  @Test
  void closingUnderAnEventWaitLeavesNvmlToTheWaitAndReturnsAtOnce() throws Exception {
    MockNvmlRoot root = setup("close-under-wait", H100, 1, "node-a");
    JnaNvml nvml = root.open();
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      EventSet set = nvml.createEventSet();
      nvml.registerEvents(nvml.deviceByIndex(0), NvmlEventType.XID_CRITICAL_ERROR, set);
      var waiting = executor.submit(() -> nvml.waitForEvent(set, Duration.ofSeconds(20)));
      Thread.sleep(200); // the wait is in NVML now

      // A stopping plugin closes NVML without waiting the wait out; NVML is not shut down under it.
      nvml.close();
      assertThatThrownBy(nvml::deviceCount).isInstanceOf(IllegalStateException.class);
      root.event("0 xid 79");
      assertThat(waiting.get(10, TimeUnit.SECONDS))
          .hasValueSatisfying(e -> assertThat(e.eventData()).isEqualTo(79));
      nvml.freeEventSet(set); // closed: left to the exiting process, no error
    }
  }

  @Test
  void concurrentDiscoveriesAgree() throws Exception {
    MockNvmlRoot root =
        setup("concurrent", H100, 8, "node-a", "--mig-enabled", "all", "--mig", "3:0@0");
    try (Nvml nvml = root.open();
        var executor = Executors.newFixedThreadPool(8)) {
      Callable<NodeInventory> discovery = () -> new GpuDiscovery(nvml).discover();
      List<Future<NodeInventory>> results = executor.invokeAll(Collections.nCopies(16, discovery));
      NodeInventory first = results.getFirst().get();
      assertThat(first.gpus().get(3).migDevices()).hasSize(1);
      for (Future<NodeInventory> result : results) {
        assertThat(result.get()).isEqualTo(first);
      }
    }
  }

  @Test
  void twoDriverRootsInOneJvmDoNotInterfere() {
    MockNvmlRoot h100 = setup("root-h100", H100, 2, "node-a", "--mig-enabled", "all");
    MockNvmlRoot a100 = setup("root-a100", A100, 3, "node-b", "--mig-enabled", "all");
    try (JnaNvml one = h100.open();
        JnaNvml two = a100.open()) {
      assertThat(one.libraryPath()).isNotEqualTo(two.libraryPath());
      assertThat(one.deviceCount()).isEqualTo(2);
      assertThat(two.deviceCount()).isEqualTo(3);
      assertThat(one.name(one.deviceByIndex(0))).contains("H100");
      assertThat(two.name(two.deviceByIndex(0))).contains("A100");

      Device gpu = one.deviceByIndex(0);
      one.createGpuInstance(gpu, 0, new Placement(0, 8));
      assertThat(one.gpuInstances(gpu, 0)).hasSize(1);
      assertThat(two.gpuInstances(two.deviceByIndex(0), 0)).isEmpty();

      one.close();
      assertThat(two.deviceCount()).isEqualTo(3);
      assertThat(new GpuDiscovery(two).discover().gpus()).hasSize(3);
    }
    assertThat(discover(h100).gpus().getFirst().migDevices()).isEmpty();
  }

  @Test
  void aClosedNvmlRefusesCalls() {
    MockNvmlRoot root = setup("closed", "L40S", 1, "node-a");
    JnaNvml nvml = root.open();
    nvml.close();
    nvml.close();

    assertThatThrownBy(nvml::deviceCount).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void telemetryFromTheSimulatorAndNotSupportedOnMigDevices() throws Exception {
    MockNvmlRoot root =
        setup("telemetry", H100, 2, "node-a", "--mig-enabled", "1", "--mig", "1:9@4");
    try (Nvml nvml = root.open()) {
      Device gpu = nvml.deviceByIndex(0);
      assertThat(nvml.utilization(gpu)).isEqualTo(new Utilization(0, 0));
      assertThat(nvml.powerUsageMilliwatts(gpu)).isEqualTo(70_000);
      assertThat(nvml.temperatureCelsius(gpu)).isEqualTo(35);
      assertThat(nvml.smClockMhz(gpu)).isEqualTo(1980);
      assertThat(nvml.volatileEccErrors(gpu, MemoryErrorType.UNCORRECTED)).isZero();
      assertThat(nvml.computeProcesses(gpu)).isEmpty();

      root.telemetry("0 gpu_util 87");
      root.telemetry("0 memory_util 41");
      root.telemetry("0 power_mw 312500");
      root.telemetry("0 temperature_c 71");
      root.telemetry("0 sm_clock_mhz 1755");
      root.telemetry("0 ecc_corrected 5");
      root.telemetry("0 ecc_uncorrected 1");
      root.telemetry("0 process 4242 1073741824");
      for (int pid = 5000; pid < 5020; pid++) { // more than the binding's first room
        root.telemetry("0 mps_process " + pid + " 1048576");
      }
      assertThat(nvml.utilization(gpu)).isEqualTo(new Utilization(87, 41));
      assertThat(nvml.powerUsageMilliwatts(gpu)).isEqualTo(312_500);
      assertThat(nvml.temperatureCelsius(gpu)).isEqualTo(71);
      assertThat(nvml.smClockMhz(gpu)).isEqualTo(1755);
      assertThat(nvml.volatileEccErrors(gpu, MemoryErrorType.CORRECTED)).isEqualTo(5);
      assertThat(nvml.volatileEccErrors(gpu, MemoryErrorType.UNCORRECTED)).isEqualTo(1);
      assertThat(nvml.computeProcesses(gpu))
          .containsExactly(new ProcessInfo(4242, 1L << 30, -1, -1));
      assertThat(nvml.mpsProcesses(gpu)).hasSize(20).allMatch(ProcessInfo::memoryKnown);
      assertThat(nvml.memoryInfo(gpu).used()).isEqualTo((1L << 30) + 20 * (1L << 20));

      Device mig = nvml.migDeviceByIndex(nvml.deviceByIndex(1), 0).orElseThrow();
      assertThatThrownBy(() -> nvml.utilization(mig))
          .isInstanceOfSatisfying(
              NvmlException.class,
              e -> {
                assertThat(e.is(NvmlReturn.NVML_ERROR_NOT_SUPPORTED)).isTrue();
                assertThat(e.call()).isEqualTo("nvmlDeviceGetUtilizationRates");
              });
      assertThatThrownBy(() -> nvml.powerUsageMilliwatts(mig)).isInstanceOf(NvmlException.class);
      root.telemetry("1/2/0 gpu_util 33");
      root.telemetry("1/2/0 mps_process 6000 104857600");
      assertThat(nvml.utilization(mig)).isEqualTo(new Utilization(33, 0));
      assertThat(nvml.mpsProcesses(mig)).containsExactly(new ProcessInfo(6000, 104857600, 2, 0));
      assertThat(nvml.memoryInfo(mig).used()).isEqualTo(104857600);

      root.fault("nvmlDeviceGetPowerUsage NVML_ERROR_GPU_IS_LOST 1");
      assertThatThrownBy(() -> nvml.powerUsageMilliwatts(gpu))
          .isInstanceOfSatisfying(
              NvmlException.class,
              e -> assertThat(e.is(NvmlReturn.NVML_ERROR_GPU_IS_LOST)).isTrue());
      assertThat(nvml.powerUsageMilliwatts(gpu)).isEqualTo(312_500);
    }
  }
}
