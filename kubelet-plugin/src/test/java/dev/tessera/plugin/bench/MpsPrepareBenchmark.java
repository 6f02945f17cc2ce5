package dev.tessera.plugin.bench;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;

import dev.tessera.plugin.it.KubeletClient;
import dev.tessera.plugin.it.MockApiServer;
import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prepare and unprepare latency of an MPS share against the plugin as its own process on the
 * simulator (H100 x8, no simulated hardware or tool delay). Prints a Markdown table.
 *
 * <p>Arguments: {@code <plugin jar> [cycles] [warm-up cycles] [config|share]}:
 *
 * <ul>
 *   <li>{@code config}: eight claims, one per GPU, each with an MPS {@code GpuConfig} (40 %, 20Gi).
 *       Each prepare is the GPU's first MPS claim: it switches the GPU to exclusive-process and
 *       starts the control daemon ({@code nvidia-smi}, {@code nvidia-cuda-mps-control -d}); each
 *       unprepare tells the daemon to quit and restores the compute mode.
 *   <li>{@code share}: eight memory shares (consumed 20Gi, a share ID), one per GPU, each joining a
 *       GPU whose daemon another share (prepared once, before the cycles) keeps running: the
 *       prepare checks the limits and the daemon and writes the spec, no tool runs.
 * </ul>
 */
public final class MpsPrepareBenchmark {
  private MpsPrepareBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    String mode = args.length > 3 ? args[3] : "config";
    if (!mode.equals("config") && !mode.equals("share")) {
      throw new IllegalArgumentException("mode must be config or share, not " + mode);
    }
    String javaOpts = System.getenv().getOrDefault("TESSERA_JAVA_OPTS", "");
    Path dir = Files.createTempDirectory("tessera-mps-bench");
    PluginProcess plugin = null;
    try (MockApiServer api = new MockApiServer()) {
      Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 8);
      List<ResourceClaim> claims = new ArrayList<>();
      List<ResourceClaim> anchors = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        if (mode.equals("config")) {
          claims.add(
              api.client()
                  .resource(
                      claim(
                          "u" + i,
                          "mps-" + i,
                          List.of(result("gpu", "gpu-" + i)),
                          List.of(
                              config("FromClaim", List.of("gpu"), mps("GpuConfig", 40, "20Gi")))))
                  .create());
        } else {
          claims.add(api.client().resource(share("share-" + i, i, 1)).create());
          anchors.add(api.client().resource(share("anchor-" + i, i, 2)).create());
        }
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
        for (ResourceClaim anchor : anchors) {
          String error = kubelet.prepare(anchor).get(anchor.getMetadata().getUid()).getError();
          if (!error.isEmpty()) {
            throw new IllegalStateException("anchor prepare failed: " + error);
          }
        }
        Cycles.print("MPS (" + mode + ")", Cycles.measure(kubelet, claims, warmup, cycles));
        System.out.printf(
            Locale.ROOT,
            "%ncycles=%d warm-up=%d mode=%s java=%s opts=[%s]%n",
            cycles,
            warmup,
            mode,
            System.getProperty("java.version"),
            javaOpts);
        for (ResourceClaim anchor : anchors) {
          kubelet.unprepare(anchor);
        }
      }
    } finally {
      if (plugin != null) {
        plugin.close();
      }
      // The simulator's daemons end once their pipe directories are gone.
      TestFiles.deleteTree(dir);
    }
  }

  /** A 20Gi share of GPU {@code gpu}, as the scheduler allocates one of a {@code shared} GPU. */
  private static ResourceClaim share(String name, int gpu, int shareIndex) {
    var result =
        new DeviceRequestAllocationResultBuilder(result("gpu", "gpu-" + gpu))
            .withShareID("00000000-0000-0000-0000-0000000%02d%03d".formatted(gpu, shareIndex))
            .withConsumedCapacity(Map.of("memory", new Quantity("20Gi")))
            .build();
    return claim("u-" + name, name, List.of(result), List.of());
  }
}
