package dev.tessera.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.DeviceName;
import dev.tessera.api.fuzz.Fuzz;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every spec the builder makes, for generated claims (whole GPUs, MIG devices with odd profile
 * names, shares of one device, MPS edits, driver names and roots of every shape a user may
 * configure), passes the checks that container-device-interface's validation (what containerd loads
 * specs with) makes, as written here from its spec: a known cdiVersion, a {@code vendor/class}
 * kind, device names of its alphabet, unique, absolute paths, KEY=VALUE env.
 */
class CdiSpecFuzzTest {
  private static final List<String> VERSIONS =
      List.of("0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0");
  private static final Pattern VENDOR = Pattern.compile("[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?");
  private static final Pattern CLASS = Pattern.compile("[a-zA-Z]([a-zA-Z0-9_-]*[a-zA-Z0-9])?");
  private static final Pattern DEVICE =
      Pattern.compile("[a-zA-Z0-9]([a-zA-Z0-9_.:-]*[a-zA-Z0-9])?");
  private static final Pattern ENV = Pattern.compile("[^=\\x00]+=[^\\x00]*", Pattern.DOTALL);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void everySpecIsValidCdi() {
    Fuzz.check("CDI specs", this::claim, this::valid);
  }

  record Claim(
      String driver,
      String uid,
      CdiSpec.ContainerEdits common,
      List<CdiSpecBuilder.DeviceEdits> devices) {}

  private Claim claim(Random r) {
    String driver =
        List.of("gpu.tessera.dev", "gpu.example.com", "a.b", "gpu-1.corp.example", "x")
            .get(r.nextInt(5));
    String root =
        List.of("/", "/run/nvidia/driver", "/home/kubernetes/bin/nvidia", "/opt/drivers/5 80")
            .get(r.nextInt(4));
    var paths = NodePaths.forDriverRoot(DriverRoot.at(java.nio.file.Path.of(root)));
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
    return new Claim(driver, new UUID(r.nextLong(), r.nextLong()).toString(), common, devices);
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

  private void valid(Claim claim) {
    CdiSpec spec =
        new CdiSpecBuilder(claim.driver(), claim.common()).build(claim.uid(), claim.devices());
    JsonNode json = JSON.readTree(JSON.writeValueAsString(spec));
    assertThat(VERSIONS).contains(json.get("cdiVersion").asString());
    String[] kind = json.get("kind").asString().split("/", -1);
    assertThat(kind).hasSize(2);
    assertThat(kind[0]).matches(VENDOR);
    assertThat(kind[1]).matches(CLASS);
    var names = new HashSet<String>();
    for (JsonNode device : json.get("devices")) {
      String name = device.get("name").asString();
      assertThat(name).matches(DEVICE);
      assertThat(names.add(name)).as("unique %s", name).isTrue();
      assertThat(device.get("containerEdits")).as("%s has edits", name).isNotNull();
      edits(device.get("containerEdits"));
    }
    assertThat(names).isNotEmpty();
    edits(json.get("containerEdits"));
    var builder = new CdiSpecBuilder(claim.driver(), claim.common());
    for (CdiSpecBuilder.DeviceEdits device : claim.devices()) {
      String id = builder.deviceId(claim.uid(), device.deviceName());
      assertThat(id)
          .isEqualTo(json.get("kind").asString() + "=" + id.substring(id.indexOf('=') + 1));
      assertThat(names).contains(id.substring(id.indexOf('=') + 1));
    }
  }

  private static void edits(JsonNode edits) {
    if (edits == null) {
      return;
    }
    for (JsonNode env : edits.path("env")) {
      assertThat(env.asString()).matches(ENV);
    }
    for (JsonNode node : edits.path("deviceNodes")) {
      assertThat(node.get("path").asString()).startsWith("/");
      if (node.has("hostPath")) {
        assertThat(node.get("hostPath").asString()).startsWith("/");
      }
    }
    for (JsonNode mount : edits.path("mounts")) {
      assertThat(mount.get("hostPath").asString()).isNotEmpty();
      assertThat(mount.get("containerPath").asString()).startsWith("/");
    }
  }
}
