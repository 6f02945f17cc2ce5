package dev.tessera.plugin.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The node plugin as its own process (the shaded jar), configured through env vars as the DaemonSet
 * configures it, with its kubelet dirs and CDI dir under one directory.
 */
public final class PluginProcess implements AutoCloseable {
  public static final String DRIVER = "gpu.tessera.dev";

  /** The node the plugin runs on (its NODE_NAME): its GpuNode and pool are named after it. */
  public static final String NODE = "node-a";

  private final Path registryDir;
  private final Path pluginsDir;
  private final Path cdiDir;
  private final Path log;
  private final Process process;
  private final long startNanos;

  private PluginProcess(
      Path registryDir, Path pluginsDir, Path cdiDir, Path log, Process process, long startNanos) {
    this.registryDir = registryDir;
    this.pluginsDir = pluginsDir;
    this.cdiDir = cdiDir;
    this.log = log;
    this.process = process;
    this.startNanos = startNanos;
  }

  /**
   * The JVM flags the image runs the plugin with: {@code jvm.options} of this module (the tests'
   * working directory) without its comments, one string.
   */
  public static String shippedJvmOptions() throws IOException {
    return Files.readAllLines(Path.of("jvm.options")).stream()
        .filter(line -> !line.startsWith("#"))
        .collect(Collectors.joining(" "));
  }

  /** The {@code java} of the JVM running this code: the plugin's runtime unless one is given. */
  public static Path currentJava() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /**
   * Starts the plugin on this JVM's runtime with its kubelet dirs and CDI dir under {@code dir}.
   *
   * @param cdiDir where CDI specs go (a tmpfs on real nodes: /var/run/cdi)
   * @param javaOpts JVM flags, e.g. the contents of kubelet-plugin/jvm.options
   */
  public static PluginProcess start(
      Path jar,
      Path dir,
      Path cdiDir,
      Path driverRoot,
      Path kubeconfig,
      String javaOpts,
      String logLevel)
      throws IOException {
    return start(currentJava(), jar, dir, cdiDir, driverRoot, kubeconfig, javaOpts, logLevel);
  }

  /**
   * Starts the plugin as {@link #start(Path, Path, Path, Path, Path, String, String)} does, on the
   * runtime of {@code java} (e.g. an image's jlink'ed one).
   */
  public static PluginProcess start(
      Path java,
      Path jar,
      Path dir,
      Path cdiDir,
      Path driverRoot,
      Path kubeconfig,
      String javaOpts,
      String logLevel)
      throws IOException {
    var env = new LinkedHashMap<String, String>();
    env.put("NODE_NAME", NODE);
    env.put("TESSERA_REGISTRY_DIR", dir.resolve("registry").toString());
    env.put("TESSERA_PLUGINS_DIR", dir.resolve("plugins").toString());
    env.put("TESSERA_CDI_DIR", cdiDir.toString());
    env.put("TESSERA_DRIVER_ROOT", driverRoot.toString());
    env.put("TESSERA_KUBECONFIG", kubeconfig.toString());
    env.put("TESSERA_METRICS_PORT", "-1");
    env.put("LOG_LEVEL", logLevel);
    return start(java, jar, dir, javaOpts, env);
  }

  /**
   * The env vars a DaemonSet gives the plugin, for a node laid out under {@code dir}: the kubelet's
   * dirs, the CDI dir, a boot id file, the driver root, the API server and a random metrics port.
   */
  public static Map<String, String> nodeEnv(Path dir, Path driverRoot, Path kubeconfig)
      throws IOException {
    var env = new LinkedHashMap<String, String>();
    env.put("NODE_NAME", NODE);
    env.put("TESSERA_REGISTRY_DIR", dir.resolve("registry").toString());
    env.put("TESSERA_PLUGINS_DIR", dir.resolve("plugins").toString());
    env.put("TESSERA_CDI_DIR", dir.resolve("cdi").toString());
    env.put("TESSERA_DRIVER_ROOT", driverRoot.toString());
    env.put("TESSERA_KUBECONFIG", kubeconfig.toString());
    env.put("TESSERA_BOOT_ID_FILE", Files.writeString(dir.resolve("boot_id"), "b\n").toString());
    env.put("TESSERA_METRICS_PORT", "-1");
    return env;
  }

  /**
   * Starts the plugin on this JVM's runtime, configured by {@code env} (the settings' env vars, as
   * a DaemonSet sets them); its log goes to {@code dir/plugin.log}.
   */
  public static PluginProcess start(Path jar, Path dir, String javaOpts, Map<String, String> env)
      throws IOException {
    return start(currentJava(), jar, dir, javaOpts, env);
  }

  /**
   * Starts the plugin on the runtime of {@code java}, configured by {@code env}; its log goes to
   * {@code dir/plugin.log}. {@code javaOpts} are split at whitespace: an {@code @argfile} is one.
   */
  public static PluginProcess start(
      Path java, Path jar, Path dir, String javaOpts, Map<String, String> env) throws IOException {
    var command = new ArrayList<String>();
    command.add(java.toString());
    command.addAll(Arrays.stream(javaOpts.split("\\s+")).filter(s -> !s.isBlank()).toList());
    command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
    var builder = new ProcessBuilder(command).redirectErrorStream(true);
    Files.createDirectories(dir);
    builder.redirectOutput(dir.resolve("plugin.log").toFile());
    // The plugin's settings are env's only: a shell that sourced the local cluster's env (its
    // TESSERA_NODE_NAME, its kubelet dirs) would otherwise point the plugin at that node.
    builder.environment().keySet().removeIf(name -> name.startsWith("TESSERA_"));
    builder.environment().putAll(env);
    // As the image runs it: glibc's per-thread malloc arenas otherwise hold tens of MiB.
    builder.environment().put("MALLOC_ARENA_MAX", "2");
    long start = System.nanoTime();
    return new PluginProcess(
        Path.of(env.get("TESSERA_REGISTRY_DIR")),
        Path.of(env.get("TESSERA_PLUGINS_DIR")),
        Path.of(env.get("TESSERA_CDI_DIR")),
        dir.resolve("plugin.log"),
        builder.start(),
        start);
  }

  public Path registrationSocket() {
    return registryDir.resolve(DRIVER + "-reg.sock");
  }

  public Path draSocket() {
    return pluginsDir.resolve(DRIVER + "/dra.sock");
  }

  public Path checkpointFile() {
    return pluginsDir.resolve(DRIVER + "/checkpoint.json");
  }

  public Path cdiDir() {
    return cdiDir;
  }

  public Path log() {
    return log;
  }

  public long pid() {
    return process.pid();
  }

  /** Waits for the registration socket; returns the time since start in nanoseconds. */
  public long awaitRegistrationSocket() throws IOException, InterruptedException {
    while (!Files.exists(registrationSocket())) {
      if (!process.isAlive()) {
        throw new IllegalStateException("plugin exited: " + Files.readString(log()));
      }
      if (System.nanoTime() - startNanos > TimeUnit.SECONDS.toNanos(60)) {
        throw new IllegalStateException("plugin did not serve its registration socket in 60 s");
      }
      Thread.sleep(1);
    }
    return System.nanoTime() - startNanos;
  }

  public long nanosSinceStart() {
    return System.nanoTime() - startNanos;
  }

  public boolean alive() {
    return process.isAlive();
  }

  /**
   * SIGKILL of the JVM and of the tools it is running (as a container kill), but not of {@code
   * spared} nor of their children: the MPS daemons it started outlive it. Returns once the JVM is
   * gone; its sockets stay behind, as a killed plugin leaves them.
   */
  public void kill(List<ProcessHandle> spared) throws InterruptedException {
    ProcessHandle jvm = process.toHandle();
    List<ProcessHandle> tools =
        jvm.descendants()
            .filter(p -> !spared.contains(p))
            .filter(p -> p.parent().map(parent -> !spared.contains(parent)).orElse(true))
            .toList();
    jvm.destroyForcibly();
    tools.forEach(ProcessHandle::destroyForcibly);
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the plugin (pid " + jvm.pid() + ") outlived SIGKILL");
    }
  }

  /** Stops it as the kubelet's pod termination would (SIGTERM), waiting for a clean exit. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    // Generous: a JVM asked to write an AOT cache does so at exit.
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
