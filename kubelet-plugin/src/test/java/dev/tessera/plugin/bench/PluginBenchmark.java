package dev.tessera.plugin.bench;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;

import dev.tessera.plugin.it.KubeletClient;
import dev.tessera.plugin.it.MockApiServer;
import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.kubelet.RegistrationService;
import dev.tessera.plugin.kubelet.UnixSocketServer;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures the node plugin as a separate process, as the kubelet would meet it: start-up to
 * registration, NodePrepareResources / NodeUnprepareResources of a 1-GPU claim over the real Unix
 * socket (the claim served by an API server on loopback), cycles per second, and RSS after the
 * cycles. Prints a Markdown table. Run it with {@code hack/bench}.
 *
 * <p>Arguments: {@code <plugin jar> [cycles] [warm-up cycles]}. Env: {@code TESSERA_JAVA_OPTS}, the
 * plugin's JVM flags; {@code TESSERA_BENCH_JAVA}, the plugin's {@code java} (default: this JVM's),
 * e.g. an image's jlink'ed runtime.
 */
public final class PluginBenchmark {
  private static final String DRIVER = "gpu.tessera.dev";

  private PluginBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    String java = System.getenv("TESSERA_BENCH_JAVA");
    run(
        java == null ? PluginProcess.currentJava() : Path.of(java),
        jar,
        cycles,
        warmup,
        System.getenv().getOrDefault("TESSERA_JAVA_OPTS", ""),
        System.out);
  }

  /** {@link #run(Path, Path, int, int, String, PrintStream)} on this JVM's runtime. */
  static void run(Path jar, int cycles, int warmup, String javaOpts, PrintStream out)
      throws Exception {
    run(PluginProcess.currentJava(), jar, cycles, warmup, javaOpts, out);
  }

  /**
   * One run, its table printed to {@code out}; throws when a prepare or unprepare fails or the
   * GpuNode's reported inventory is not the node's 8 GPUs after the cycles (a mock API server that
   * grows it would make every later figure wrong).
   */
  static void run(Path java, Path jar, int cycles, int warmup, String javaOpts, PrintStream out)
      throws Exception {
    Path dir = Files.createTempDirectory("tessera-bench");
    // CDI specs live on a tmpfs on real nodes (/var/run/cdi); /dev/shm is one here too.
    Path shm = Path.of("/dev/shm");
    Path cdi =
        Files.isDirectory(shm) ? Files.createTempDirectory(shm, "tessera-cdi") : dir.resolve("cdi");
    PluginProcess plugin = null;
    try (MockApiServer api = new MockApiServer()) {
      Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 8);
      // One claim per GPU, prepared and unprepared in turn: each prepare is a full one (the claim
      // left the checkpoint at its unprepare), and the mock API server holds few objects.
      List<ResourceClaim> claims = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        claims.add(
            api.client()
                .resource(
                    claim(
                        "u" + i, "bench-" + i, List.of(result("gpu", "gpu-" + (i % 8))), List.of()))
                .create());
      }
      warmUpKubeletClient(dir.resolve("warm-up"));
      plugin =
          PluginProcess.start(
              java,
              jar,
              dir.resolve("node"),
              cdi,
              root,
              api.writeKubeconfig(dir),
              javaOpts,
              System.getenv().getOrDefault("TESSERA_BENCH_LOG_LEVEL", "WARN"));
      double socketMs = plugin.awaitRegistrationSocket() / 1e6;
      double registeredMs;
      try (KubeletClient kubelet =
          new KubeletClient(plugin.registrationSocket(), plugin.draSocket())) {
        kubelet.getInfo();
        kubelet.notifyRegistration(true, "");
        registeredMs = plugin.nanosSinceStart() / 1e6;

        long firstPrepare = prepare(kubelet, claims.get(0));
        unprepare(kubelet, claims.get(0));
        for (int i = 1; i < warmup; i++) {
          prepare(kubelet, claims.get(i % 8));
          unprepare(kubelet, claims.get(i % 8));
        }
        long[] prepares = new long[cycles];
        long[] unprepares = new long[cycles];
        long loopStart = System.nanoTime();
        for (int i = 0; i < cycles; i++) {
          ResourceClaim c = claims.get(i % 8);
          prepares[i] = prepare(kubelet, c);
          unprepares[i] = unprepare(kubelet, c);
        }
        double seconds = (System.nanoTime() - loopStart) / 1e9;
        long rssKib = rssKib(plugin.pid());
        checkReportedGpus(api);
        if (System.getenv("TESSERA_BENCH_NMT") != null) {
          // Needs -XX:NativeMemoryTracking=summary in TESSERA_JAVA_OPTS.
          Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
          new ProcessBuilder(
                  jcmd.toString(), Long.toString(plugin.pid()), "VM.native_memory", "summary")
              .inheritIO()
              .start()
              .waitFor();
        }

        Arrays.sort(prepares);
        Arrays.sort(unprepares);
        out.printf(Locale.ROOT, "%n| figure | value |%n|---|---|%n");
        out.printf(Locale.ROOT, "| start to registration socket | %.0f ms |%n", socketMs);
        out.printf(Locale.ROOT, "| start to registered | %.0f ms |%n", registeredMs);
        out.printf(Locale.ROOT, "| first prepare (cold) | %.2f ms |%n", firstPrepare / 1e6);
        out.printf(
            Locale.ROOT,
            "| prepare p50 / p90 / p99 | %.2f / %.2f / %.2f ms |%n",
            Cycles.pct(prepares, 50),
            Cycles.pct(prepares, 90),
            Cycles.pct(prepares, 99));
        out.printf(
            Locale.ROOT,
            "| unprepare p50 / p90 / p99 | %.2f / %.2f / %.2f ms |%n",
            Cycles.pct(unprepares, 50),
            Cycles.pct(unprepares, 90),
            Cycles.pct(unprepares, 99));
        out.printf(Locale.ROOT, "| prepare+unprepare cycles/s | %.0f |%n", cycles / seconds);
        out.printf(
            Locale.ROOT, "| RSS after %d cycles | %.1f MiB |%n", warmup + cycles, rssKib / 1024.0);
        // As the kubelet stops a pod: SIGTERM, then the time until the process has exited.
        long termStart = System.nanoTime();
        plugin.close();
        double termMs = (System.nanoTime() - termStart) / 1e6;
        out.printf(Locale.ROOT, "| SIGTERM to exit | %.0f ms |%n", termMs);
        out.printf(
            Locale.ROOT,
            "%ncycles=%d warm-up=%d java=%s opts=[%s]%n",
            cycles,
            warmup,
            java,
            javaOpts);
      }
    } finally {
      if (plugin != null) {
        plugin.close();
      }
      String keepLog = System.getenv("TESSERA_BENCH_PLUGIN_LOG");
      if (keepLog != null && plugin != null && Files.exists(plugin.log())) {
        Files.copy(plugin.log(), Path.of(keepLog), StandardCopyOption.REPLACE_EXISTING);
      }
      TestFiles.deleteTree(dir);
      TestFiles.deleteTree(cdi);
    }
  }

  /**
   * Loads this JVM's gRPC client classes against a throwaway registration server, so the time to
   * registration measures the plugin, not the benchmark's own class loading.
   */
  private static void warmUpKubeletClient(Path dir) throws Exception {
    Path socket = dir.resolve("reg.sock");
    var service = new RegistrationService(DRIVER, dir.resolve("dra.sock").toString(), reason -> {});
    try (var server = UnixSocketServer.start(socket, List.of(service));
        var client = new KubeletClient(socket, socket)) {
      for (int i = 0; i < 20; i++) {
        client.getInfo();
        client.notifyRegistration(true, "");
      }
    }
  }

  private static void checkReportedGpus(MockApiServer api) {
    var gpuNode =
        api.client()
            .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
            .withName(PluginProcess.NODE)
            .get();
    Object status = gpuNode == null ? null : gpuNode.getAdditionalProperties().get("status");
    Object inventory = status instanceof Map<?, ?> m ? m.get("inventory") : null;
    Object gpus = inventory instanceof Map<?, ?> m ? m.get("gpus") : null;
    if (!(gpus instanceof List<?> list) || list.size() != 8) {
      throw new IllegalStateException(
          "the GpuNode reports "
              + (gpus instanceof List<?> list ? list.size() + " GPUs" : "no inventory")
              + ", not the node's 8");
    }
  }

  private static long prepare(KubeletClient kubelet, ResourceClaim claim) {
    long t = System.nanoTime();
    String error = kubelet.prepare(claim).get(claim.getMetadata().getUid()).getError();
    long elapsed = System.nanoTime() - t;
    if (!error.isEmpty()) {
      throw new IllegalStateException("prepare failed: " + error);
    }
    return elapsed;
  }

  private static long unprepare(KubeletClient kubelet, ResourceClaim claim) {
    long t = System.nanoTime();
    String error = kubelet.unprepare(claim);
    long elapsed = System.nanoTime() - t;
    if (!error.isEmpty()) {
      throw new IllegalStateException("unprepare failed: " + error);
    }
    return elapsed;
  }

  private static long rssKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }
}
