package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.gpuConfig;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static dev.tessera.plugin.Fixtures.timeSlicing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.nvml.Nvml;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Admin access through the real plugin over its sockets, on the simulator (H100 x2, GPU 1 in MIG
 * mode with an admin's 1g.10gb at slice 0): a claim allocated with {@code adminAccess} gets the
 * devices as they are beside the claims that hold them, and neither claim's unprepare undoes the
 * other's checkpoint entry, CDI spec, MPS daemon, time-slice or MIG device.
 */
class AdminAccessIT {
  private static final String STATIC_MIG = "gpu-1-mig-1g10gb-0";
  // H100 1g.10gb at slice 3 of GPU 0 (not in MIG mode): a dynamic-MIG placement.
  private static final String DYNAMIC_MIG = "gpu-0-mig-1g10gb-3";
  private static final String MONITOR = "/dev/nvidia-caps/nvidia-cap2";

  @RegisterExtension
  final SimulatedPlugin node =
      new SimulatedPlugin("H100-SXM5-80GB", 2, "--mig-enabled", "1", "--mig", "1:19@0");

  private final JsonMapper json = JsonMapper.builder().build();

  /** A claim in a namespace labelled for admin access, allocated every device named. */
  private ResourceClaim admin(String name, String... devices) {
    return admin(name, List.of(), devices);
  }

  private ResourceClaim admin(
      String name, List<DeviceAllocationConfiguration> configs, String... devices) {
    List<DeviceRequestAllocationResult> results =
        Arrays.stream(devices)
            .map(
                d ->
                    new DeviceRequestAllocationResultBuilder(result("all", d))
                        .withAdminAccess(true)
                        .build())
            .toList();
    return node.plugin().create(claim("uid-" + name, name, results, configs));
  }

  private ResourceClaim user(String name, String request, String device) {
    return node.plugin()
        .create(claim("uid-" + name, name, List.of(result(request, device)), List.of()));
  }

  private ResourceClaim shared(String name, Map<String, Object> params) {
    return node.plugin()
        .create(
            claim(
                "uid-" + name,
                name,
                List.of(result("gpu", "gpu-0")),
                List.of(config("FromClaim", List.of("gpu"), params))));
  }

  private String prepare(ResourceClaim claim) {
    return node.plugin().kubelet().prepare(claim).get(uid(claim)).getError();
  }

  private static String uid(ResourceClaim claim) {
    return claim.getMetadata().getUid();
  }

  private PreparedClaims checkpoint() {
    return new CheckpointStore(node.plugin().checkpointFile(), json).load("boot-1");
  }

  private JsonNode spec(ResourceClaim claim) throws IOException {
    return json.readTree(Files.readString(node.plugin().specFile(uid(claim))));
  }

  /** The CDI device of {@code device} in the claim's spec. */
  private JsonNode cdiDevice(ResourceClaim claim, String device) throws IOException {
    for (JsonNode d : spec(claim).get("devices")) {
      if (d.get("name").asString().equals(uid(claim) + "-" + device)) {
        return d.get("containerEdits");
      }
    }
    throw new AssertionError("no CDI device " + device + " in " + spec(claim));
  }

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

  private Gpu gpu(int minor) {
    return new GpuDiscovery(node.plugin().context().getBean(Nvml.class))
        .discover()
        .gpuByMinor(minor)
        .orElseThrow();
  }

  private ResourceClaim readClaim(ResourceClaim claim) {
    return node.api()
        .client()
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(claim.getMetadata().getNamespace())
        .withName(claim.getMetadata().getName())
        .get();
  }

  private ClaimEntry entry(ResourceClaim claim) {
    return checkpoint().claims().get(uid(claim));
  }

  @Test
  void anAdminClaimSeesEveryDeviceBesideAnExclusiveClaimAndEitherGoesFirst() throws Exception {
    var exclusive = user("user", "gpu", "gpu-0");
    var watch = admin("watch", "gpu-0", STATIC_MIG);
    assertThat(prepare(exclusive)).isEmpty();
    JsonNode exclusiveSpec = spec(exclusive);
    ClaimEntry exclusiveEntry = entry(exclusive);

    assertThat(prepare(watch)).isEmpty();

    assertThat(cdiDevice(watch, "gpu-0").findValuesAsString("path"))
        .containsExactly("/dev/nvidia0", MONITOR);
    // The admin's instance at slice 0 of GPU 1 is GPU instance 7: capability nodes 3+135+63 (+1).
    assertThat(cdiDevice(watch, STATIC_MIG).findValuesAsString("path"))
        .containsExactly(
            "/dev/nvidia1",
            "/dev/nvidia-caps/nvidia-cap201",
            "/dev/nvidia-caps/nvidia-cap202",
            MONITOR);
    assertThat(cdiDevice(watch, "gpu-0").get("env").toString())
        .isEqualTo("[\"TESSERA_ADMIN_ACCESS=true\"]");
    assertThat(spec(watch).get("containerEdits").get("env").toString())
        .contains("NVIDIA_VISIBLE_DEVICES=void");
    assertThat(entry(watch).devices())
        .allSatisfy(d -> assertThat(d.adminAccess()).isTrue())
        .extracting(d -> d.uuid())
        .containsExactly(gpu(0).uuid(), gpu(1).migDevices().getFirst().uuid());

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(readClaim(watch).getStatus().getDevices())
                    .hasSize(2)
                    .allSatisfy(
                        s ->
                            assertThat(s.getConditions())
                                .singleElement()
                                .satisfies(
                                    c -> {
                                      assertThat(c.getType()).isEqualTo("Ready");
                                      assertThat(c.getMessage()).contains("admin access");
                                    })));
    var metrics = node.plugin().context().getBean(MeterRegistry.class);
    assertThat(metrics.get("tessera.claims.prepare").tag("outcome", "success").timer().count())
        .isEqualTo(2);

    // Admin first out: the exclusive claim keeps everything.
    assertThat(node.plugin().kubelet().unprepare(watch)).isEmpty();
    assertThat(node.plugin().specFile(uid(watch))).doesNotExist();
    assertThat(spec(exclusive)).isEqualTo(exclusiveSpec);
    assertThat(entry(exclusive)).isEqualTo(exclusiveEntry);

    // The exclusive claim first out: the admin claim keeps everything.
    assertThat(prepare(watch)).isEmpty();
    JsonNode watchSpec = spec(watch);
    ClaimEntry watchEntry = entry(watch);
    assertThat(node.plugin().kubelet().unprepare(exclusive)).isEmpty();
    assertThat(spec(watch)).isEqualTo(watchSpec);
    assertThat(entry(watch)).isEqualTo(watchEntry);
    assertThat(gpu(1).migDevices()).hasSize(1);
  }

  @Test
  void anAdminClaimPreparedFirstDoesNotBlockALaterExclusiveClaim() throws Exception {
    var watch = admin("watch", "gpu-0");
    var exclusive = user("user", "gpu", "gpu-0");
    var second = user("second", "gpu", "gpu-0");

    assertThat(prepare(watch)).isEmpty();
    assertThat(prepare(exclusive)).isEmpty();
    // The exclusive claim's hold still counts for everyone but admins.
    assertThat(prepare(second)).contains("already prepared for claim default/user");
  }

  @Test
  void theMpsDaemonIsStartedAndStoppedByTheSharedClaimsAlone() throws Exception {
    var mpsClaim = shared("mps", mps("GpuConfig", 50, "10Gi"));
    var watch = admin("watch", "gpu-0");
    String uuid = gpuState(0)[6];
    assertThat(prepare(mpsClaim)).isEmpty();
    Path pid =
        node.plugin()
            .dir
            .resolve(
                "plugins/"
                    + PluginHarness.DRIVER
                    + "/mps/"
                    + uuid
                    + "/pipe/nvidia-cuda-mps-control.pid");
    long daemon = Long.parseLong(Files.readString(pid).strip());

    assertThat(prepare(watch)).isEmpty();
    assertThat(cdiDevice(watch, "gpu-0").has("mounts")).isFalse();
    assertThat(node.plugin().kubelet().unprepare(watch)).isEmpty();
    assertThat(ProcessHandle.of(daemon).map(ProcessHandle::isAlive)).contains(true);
    assertThat(node.plugin().specFile(uid(mpsClaim))).exists();

    // A restart keeps the daemon (the admin entry needs none, the MPS claim does)...
    assertThat(prepare(watch)).isEmpty();
    node.plugin().stop();
    node.plugin().start();
    assertThat(Long.parseLong(Files.readString(pid).strip())).isEqualTo(daemon);
    assertThat(toolLog("nvidia-cuda-mps-control")).hasSize(1);

    // ...and the last MPS claim stops it although the admin claim still has the GPU.
    assertThat(node.plugin().kubelet().unprepare(mpsClaim)).isEmpty();
    assertThat(toolLog("nvidia-cuda-mps-control")).last().asString().endsWith("stdin: quit;");
    assertThat(gpuState(0)[4]).isEqualTo("0");
    assertThat(node.plugin().specFile(uid(watch))).exists();
    assertThat(entry(watch)).isNotNull();
  }

  @Test
  void theTimeSliceIsLeftToTheTimeSlicedClaims() throws Exception {
    var sliced = shared("sliced", timeSlicing("Long"));
    var watch = admin("watch", "gpu-0");
    assertThat(prepare(watch)).isEmpty();
    assertThat(prepare(sliced)).isEmpty(); // the admin hold does not count as another strategy
    assertThat(gpuState(0)[5]).isEqualTo("3");
    var smiCalls = toolLog("nvidia-smi");

    assertThat(node.plugin().kubelet().unprepare(watch)).isEmpty();
    assertThat(gpuState(0)[5]).isEqualTo("3");
    assertThat(prepare(watch)).isEmpty();
    assertThat(toolLog("nvidia-smi")).isEqualTo(smiCalls);

    assertThat(node.plugin().kubelet().unprepare(sliced)).isEmpty();
    assertThat(gpuState(0)[5]).isEqualTo("0");
    assertThat(node.plugin().specFile(uid(watch))).exists();
  }

  @Test
  void aDynamicMigDeviceIsHandedOverIfItExistsAndNeverMadeOrDestroyedForAnAdmin() throws Exception {
    var watch = admin("watch", DYNAMIC_MIG);
    // Not made: the placement is handed over as its GPU, MIG mode stays off.
    assertThat(prepare(watch)).isEmpty();
    assertThat(gpu(0).migDevices()).isEmpty();
    assertThat(entry(watch).createdMig()).isEmpty();
    assertThat(entry(watch).devices().getFirst().uuid()).isEqualTo(gpu(0).uuid());
    assertThat(cdiDevice(watch, DYNAMIC_MIG).findValuesAsString("path"))
        .containsExactly("/dev/nvidia0", MONITOR);
    assertThat(node.plugin().kubelet().unprepare(watch)).isEmpty();

    // Made by another claim: handed over as it is, and left to that claim.
    var maker = user("maker", "mig", DYNAMIC_MIG);
    assertThat(prepare(maker)).isEmpty();
    MigDevice made = gpu(0).migDevices().getFirst();
    assertThat(prepare(watch)).isEmpty();
    assertThat(entry(watch).devices().getFirst().uuid()).isEqualTo(made.uuid());
    assertThat(entry(watch).createdMig()).isEmpty();
    assertThat(cdiDevice(watch, DYNAMIC_MIG).findValuesAsString("path"))
        .containsExactly(
            "/dev/nvidia0",
            "/dev/nvidia-caps/nvidia-cap93",
            "/dev/nvidia-caps/nvidia-cap94",
            MONITOR);

    assertThat(node.plugin().kubelet().unprepare(watch)).isEmpty();
    assertThat(gpu(0).migDevices()).containsExactly(made);
    assertThat(entry(maker).createdMig()).hasSize(1);

    assertThat(prepare(watch)).isEmpty();
    assertThat(node.plugin().kubelet().unprepare(maker)).isEmpty();
    assertThat(gpu(0).migDevices()).isEmpty();
    assertThat(entry(watch)).isNotNull();
    assertThat(node.plugin().specFile(uid(watch))).exists();
  }

  @Test
  void anAdminRequestThatAsksForSharingFailsNamingTheField() throws Exception {
    var watch =
        admin("watch", List.of(config("FromClaim", List.of("all"), gpuConfig("MPS"))), "gpu-0");

    assertThat(prepare(watch))
        .contains("status.allocation.devices.config[0].opaque.parameters.sharing.strategy")
        .contains("adminAccess");
    assertThat(node.plugin().specFile(uid(watch))).doesNotExist();
    assertThat(checkpoint().claims()).isEmpty();
    assertThat(toolLog("nvidia-cuda-mps-control")).isEmpty();
  }
}
