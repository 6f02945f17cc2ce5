package dev.tessera.plugin.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The training run of the node plugin image's AOT cache, for {@code hack/images}: {@link
 * PluginBenchmark}'s start, registration and prepare/unprepare cycles (the NVML simulator's 8
 * H100s, a mock API server), run by the image's own jlink'ed {@code java} on its jar with its
 * {@code jvm.options}, all from the image's root filesystem, plus {@code -XX:AOTCacheOutput}: the
 * plugin's JVM writes the cache as it exits. The JVM finds the cache's class path at the image's
 * {@code /opt/tessera} later because the relative layout is the same (JDK 25 substitutes the
 * longest common prefix of the runtime image and the jar).
 *
 * <p>Arguments: {@code <rootfs> <cache> [cycles] [warm-up cycles]}. The benchmark's table goes to
 * stderr: a training run's figures mean nothing.
 */
public final class ImageAotTraining {
  private ImageAotTraining() {}

  public static void main(String[] args) throws Exception {
    Path tessera = Path.of(args[0]).toAbsolutePath().resolve("opt/tessera");
    Path cache = Path.of(args[1]).toAbsolutePath();
    int cycles = args.length > 2 ? Integer.parseInt(args[2]) : 300;
    int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 100;
    Files.deleteIfExists(cache);
    // Dumping the cache needs more metaspace headroom than running does.
    String trainingOpts =
        "@"
            + tessera.resolve("jvm.options")
            + " -XX:MaxMetaspaceSize=256m -XX:AOTCacheOutput="
            + cache
            // as the entrypoint loads JNA's and netty's native parts (hack/images)
            + " -Djna.boot.library.path="
            + tessera.resolve("lib")
            + " -Djava.library.path="
            + tessera.resolve("lib");
    PluginBenchmark.run(
        tessera.resolve("jre/bin/java"),
        tessera.resolve("app.jar"),
        cycles,
        warmup,
        trainingOpts,
        System.err);
    if (!Files.isRegularFile(cache)) {
      throw new IllegalStateException("the training run wrote no AOT cache at " + cache);
    }
  }
}
