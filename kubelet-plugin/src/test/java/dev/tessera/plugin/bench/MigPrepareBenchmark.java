package dev.tessera.plugin.bench;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;

import dev.tessera.plugin.it.KubeletClient;
import dev.tessera.plugin.it.MockApiServer;
import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prepare and unprepare latency of a dynamic MIG claim (one 1g.10gb at slice 3, created at prepare
 * and destroyed at unprepare) against the plugin as its own process on the simulator (H100 x8, MIG
 * mode already on, no simulated hardware delay). Prints a Markdown table.
 *
 * <p>Arguments: {@code <plugin jar> [cycles] [warm-up cycles] [all|none]} — the last one the GPUs'
 * MIG mode at start ({@code none}: every prepare switches it on and every unprepare off again).
 */
public final class MigPrepareBenchmark {
  private MigPrepareBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    String migMode = args.length > 3 ? args[3] : "all";
    String javaOpts = System.getenv().getOrDefault("TESSERA_JAVA_OPTS", "");
    Path dir = Files.createTempDirectory("tessera-mig-bench");
    PluginProcess plugin = null;
    try (MockApiServer api = new MockApiServer()) {
      Path root =
          SimulatedNode.layOut(
              dir.resolve("driver-root"), "H100-SXM5-80GB", 8, "--mig-enabled", migMode);
      List<ResourceClaim> claims = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        claims.add(
            api.client()
                .resource(
                    claim(
                        "u" + i,
                        "mig-" + i,
                        List.of(result("mig", "gpu-" + i + "-mig-1g10gb-3")),
                        List.of()))
                .create());
      }
      plugin =
          PluginProcess.start(
              jar,
              dir.resolve("node"),
              dir.resolve("cdi"),
              root,
              api.writeKubeconfig(dir),
              javaOpts,
              "WARN");
      plugin.awaitRegistrationSocket();
      try (KubeletClient kubelet =
          new KubeletClient(plugin.registrationSocket(), plugin.draSocket())) {
        kubelet.notifyRegistration(true, "");
        Cycles.print("MIG", Cycles.measure(kubelet, claims, warmup, cycles));
        System.out.printf(
            Locale.ROOT,
            "%ncycles=%d warm-up=%d mig-enabled=%s java=%s opts=[%s]%n",
            cycles,
            warmup,
            migMode,
            System.getProperty("java.version"),
            javaOpts);
      }
    } finally {
      if (plugin != null) {
        plugin.close();
      }
      TestFiles.deleteTree(dir);
    }
  }
}
