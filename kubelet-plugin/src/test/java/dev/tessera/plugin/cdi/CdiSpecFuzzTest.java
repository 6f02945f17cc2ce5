package dev.tessera.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.fuzz.Fuzz;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.prepare.DeviceEditsResolver;
import dev.tessera.plugin.sharing.MpsPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every spec file the plugin writes passes {@link CdiValidation}, the checks of
 * container-device-interface (what containerd loads specs with) and of the runtime: for hand-made
 * edits of every shape (odd driver names, driver roots, MIG profiles, MPS edits), and for claims of
 * whole GPUs, MIG devices, shares and admin access resolved by the plugin's own {@link
 * DeviceEditsResolver} on a driver root with its capability nodes, as a DaemonSet sees it. Each
 * device's ID, as the kubelet hands it to the runtime, names a device of the spec.
 */
class CdiSpecFuzzTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int GPUS = 8;
  private static final int INSTANCES = 4;

  @TempDir static Path root;

  /** A driver root with control nodes, libraries, binaries and every GPU's MIG capabilities. */
  @BeforeAll
  static void driverRoot() throws IOException {
    for (String node : List.of("dev/nvidiactl", "dev/nvidia-uvm", "dev/nvidia-uvm-tools")) {
      Files.createDirectories(root.resolve(node).getParent());
      Files.createFile(root.resolve(node));
    }
    Files.createDirectories(root.resolve("usr/lib64"));
    Files.createFile(root.resolve("usr/lib64/libcuda.so.580.65.06"));
    Files.createFile(root.resolve("usr/lib64/libnvidia-ml.so.580.65.06"));
    Files.createDirectories(root.resolve("usr/bin"));
    Files.createFile(root.resolve("usr/bin/nvidia-smi"));
    Path caps = root.resolve("proc/driver/nvidia/capabilities");
    Files.createDirectories(caps.resolve("mig"));
    Files.writeString(caps.resolve("mig/monitor"), "DeviceFileMinor: 2\n");
    int minor = 3;
    for (int gpu = 0; gpu < GPUS; gpu++) {
      for (int gi = 0; gi < INSTANCES; gi++) {
        Path dir = caps.resolve("gpu" + gpu + "/mig/gi" + gi);
        Files.createDirectories(dir.resolve("ci0"));
        Files.writeString(dir.resolve("access"), "DeviceFileMinor: " + minor++ + "\n");
        Files.writeString(dir.resolve("ci0/access"), "DeviceFileMinor: " + minor++ + "\n");
      }
    }
  }

  @Test
  void everySpecIsValidCdi() {
    Fuzz.check("CDI specs", this::claim, this::valid);
  }

  @Test
  void everySpecOfPlannedDevicesIsValidCdi() {
    Fuzz.check("CDI specs, planned devices", this::plannedClaim, this::valid);
  }

  record Claim(
      String driver,
      String uid,
      CdiSpec.ContainerEdits common,
      List<CdiSpecBuilder.DeviceEdits> devices) {}

  private Claim claim(Random r) {
    String root =
        List.of("/", "/run/nvidia/driver", "/home/kubernetes/bin/nvidia", "/opt/drivers/5 80")
            .get(r.nextInt(4));
    var paths = NodePaths.forDriverRoot(DriverRoot.at(Path.of(root)));
    var common =
        new CdiSpec.ContainerEdits(
            List.of("NVIDIA_VISIBLE_DEVICES=void"),
            List.of(paths.deviceNode("/dev/nvidiactl"), paths.deviceNode("/dev/nvidia-uvm")),
            List.of(
                new CdiSpec.Mount(
                    root + "/usr/lib/libcuda.so.1",
                    "/usr/lib/libcuda.so.1",
                    List.of("ro", "nosuid", "nodev", "bind"))));
    var devices = new ArrayList<CdiSpecBuilder.DeviceEdits>();
    var names = new HashSet<String>();
    int count = 1 + r.nextInt(8);
    for (int i = 0; i < count; i++) {
      int minor = r.nextInt(r.nextBoolean() ? 8 : 1_000_000);
      String name =
          r.nextBoolean()
              ? new DeviceName.Gpu(minor).value()
              : new DeviceName.Mig(minor, profile(r), r.nextInt(8)).value();
      if (!names.add(name)) {
        continue; // one device once per claim: a share of a device is the same CDI device
      }
      var nodes = List.of(paths.deviceNode("/dev/nvidia" + minor));
      if (r.nextBoolean()) {
        String pipe = "/var/lib/tessera/mps/" + UUID.randomUUID();
        devices.add(
            new CdiSpecBuilder.DeviceEdits(
                name,
                nodes,
                List.of(
                    "CUDA_MPS_PIPE_DIRECTORY=" + pipe,
                    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + (1 + r.nextInt(100))),
                List.of(new CdiSpec.Mount(pipe, pipe, List.of("rw", "bind")))));
      } else {
        devices.add(new CdiSpecBuilder.DeviceEdits(name, nodes));
      }
    }
    return new Claim(driver(r), uid(r), common, devices);
  }

  /**
   * A claim of 1–8 planned devices (whole GPUs, MIG devices, either shared, time-sliced or with
   * admin access), resolved as the plugin resolves them on a driver root it sees at {@link #root}
   * and the host at another path; the common edits as the plugin's factory builds them.
   */
  private Claim plannedClaim(Random r) {
    String onHost =
        List.of("/", "/run/nvidia/driver", "/home/kubernetes/bin/nvidia", "/opt/drivers/5 80")
            .get(r.nextInt(4));
    var driverRoot = new DriverRoot(root, Path.of(onHost));
    var paths = NodePaths.forDriverRoot(driverRoot);
    var nodes =
        List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools").stream()
            .filter(paths::exists)
            .map(paths::deviceNode)
            .toList();
    var common =
        new CdiSpec.ContainerEdits(
            List.of("NVIDIA_VISIBLE_DEVICES=void"), nodes, DriverFiles.discover(driverRoot));
    var mps = new MpsPaths(Path.of("/var/lib/kubelet/plugins/gpu.tessera.dev/mps"));
    var plan = new ArrayList<PlannedDevice>();
    int count = 1 + r.nextInt(8);
    for (int i = 0; i < count; i++) {
      int minor = r.nextInt(GPUS);
      boolean admin = r.nextInt(4) == 0;
      MigMode mode = MigMode.values()[r.nextInt(MigMode.values().length)];
      Gpu gpu = gpu(minor, mode);
      if (r.nextBoolean()) {
        int gi = r.nextInt(INSTANCES);
        String profile = profile(r);
        var mig =
            new MigDevice(
                "MIG-" + new UUID(r.nextLong(), r.nextLong()),
                gi,
                0,
                r.nextInt(20),
                profile,
                new MigPlacement(r.nextInt(8), 1 + r.nextInt(8)),
                1L << 30);
        var name = new DeviceName.Mig(minor, profile, mig.placement().start());
        plan.add(
            new PlannedDevice(
                "gpu",
                "node",
                name,
                gpu,
                mig,
                new DeviceConfig.MigDeviceConfig(sharing(r, admin)),
                "share-" + i,
                admin));
      } else {
        plan.add(
            new PlannedDevice(
                "gpu",
                "node",
                new DeviceName.Gpu(minor),
                gpu,
                null,
                new DeviceConfig.GpuConfig(sharing(r, admin)),
                "share-" + i,
                admin));
      }
    }
    try {
      var devices = new DeviceEditsResolver(paths, mps).resolve(plan);
      return new Claim(driver(r), uid(r), common, devices);
    } catch (dev.tessera.plugin.claim.PrepareException e) {
      throw new AssertionError("every capability node is announced", e);
    }
  }

  private static Gpu gpu(int minor, MigMode mode) {
    return new Gpu(
        minor,
        minor,
        "GPU-" + new UUID(minor, 42),
        "NVIDIA H100 80GB HBM3",
        "Nvidia",
        "Hopper",
        "9.0",
        80L << 30,
        "0000:0" + minor + ":00.0",
        "pci0000:00",
        0,
        mode,
        List.of(),
        List.of());
  }

  private static Sharing sharing(Random r, boolean admin) {
    if (admin) {
      return new Sharing.Exclusive(); // what the planner lets through with admin access
    }
    return switch (r.nextInt(3)) {
      case 0 -> new Sharing.Exclusive();
      case 1 ->
          new Sharing.TimeSlicing(
              Sharing.TimeSliceInterval.values()[
                  r.nextInt(Sharing.TimeSliceInterval.values().length)]);
      default ->
          new Sharing.Mps(
              r.nextBoolean() ? OptionalInt.of(1 + r.nextInt(100)) : OptionalInt.empty(),
              r.nextBoolean()
                  ? OptionalLong.of(1 + (r.nextLong() & Long.MAX_VALUE))
                  : OptionalLong.empty());
    };
  }

  /** A driver name the API server takes: a DNS subdomain of up to 63 characters. */
  private static String driver(Random r) {
    if (r.nextBoolean()) {
      return List.of("gpu.tessera.dev", "gpu.example.com", "a.b", "gpu-1.corp.example", "x")
          .get(r.nextInt(5));
    }
    String alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
    var name = new StringBuilder();
    int length = 1 + r.nextInt(63);
    for (int i = 0; i < length; i++) {
      boolean edge = i == 0 || i == length - 1 || name.charAt(i - 1) == '.';
      name.append(
          !edge && r.nextInt(5) == 0
              ? ".-".charAt(r.nextInt(2))
              : alnum.charAt(r.nextInt(alnum.length())));
    }
    return name.toString();
  }

  /** A claim UID as the API server makes them. */
  private static String uid(Random r) {
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }

  private static String profile(Random r) {
    return List.of(
            "1g.10gb",
            "1g.10gb+me",
            "1g.20gb",
            "2g.20gb",
            "3g.40gb",
            "4g.40gb",
            "7g.80gb",
            "1c.3g.40gb",
            "1G.18GB+ME+GFX",
            "MIG 1g.5gb")
        .get(r.nextInt(10));
  }

  private void valid(Claim claim) throws IOException {
    var builder = new CdiSpecBuilder(claim.driver(), claim.common());
    var writer = new CdiSpecWriter(root.resolve("cdi"), claim.driver(), JSON);
    writer.write(claim.uid(), builder.build(claim.uid(), claim.devices()));
    Path file = writer.specFile(claim.uid());
    byte[] bytes = Files.readAllBytes(file);
    assertThat(CdiValidation.problems(bytes)).as(new String(bytes)).isEmpty();
    // The cache loads *.json files of the directory, each one spec: ours end so, the temp not.
    assertThat(file.getFileName().toString()).endsWith(".json");
    try (var files = Files.list(file.getParent())) {
      assertThat(files.filter(f -> f.toString().endsWith(".tmp"))).isEmpty();
    }
    JsonNode json = JSON.readTree(bytes);
    var names = new HashSet<String>();
    json.get("devices").forEach(d -> names.add(d.get("name").asString()));
    for (CdiSpecBuilder.DeviceEdits device : claim.devices()) {
      String id = builder.deviceId(claim.uid(), device.deviceName());
      assertThat(id).startsWith(json.get("kind").asString() + "=");
      assertThat(names).contains(id.substring(id.indexOf('=') + 1));
    }
    assertThat(writer.delete(claim.uid())).isTrue();
  }
}
