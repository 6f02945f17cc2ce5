package dev.tessera.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Tessera's controller as its own process (the shaded jar), configured by env vars. */
final class ControllerProcess implements AutoCloseable {
  private final Process process;
  private final Path log;

  private ControllerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static ControllerProcess start(Path jar, Path dir, Map<String, String> env) throws IOException {
    return start(jar, dir, env, List.of("-XX:+UseSerialGC", "-Xmx128m", "-XX:TieredStopAtLevel=1"));
  }

  static ControllerProcess start(
      Path jar, Path dir, Map<String, String> env, List<String> jvmOptions) throws IOException {
    return start(
        Path.of(System.getProperty("java.home"), "bin", "java"), jar, dir, env, jvmOptions);
  }

  /** The controller on another Java runtime (an image's own, unpacked). */
  static ControllerProcess start(
      Path java, Path jar, Path dir, Map<String, String> env, List<String> jvmOptions)
      throws IOException {
    var command = new ArrayList<String>();
    command.add(java.toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString()));
    Path log = dir.resolve("controller.log");
    Files.createDirectories(dir);
    var builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().putAll(env);
    return new ControllerProcess(builder.start(), log);
  }

  Path log() {
    return log;
  }

  /**
   * The informers the controller starts (GpuNodes, Nodes, Leases, slices); each logs its one list,
   * at its start.
   */
  static final int INFORMERS = 4;

  /** Whether the controller's log says every informer has listed: its caches have synced. */
  boolean cachesSynced() throws IOException {
    return Files.readString(log).lines().filter(l -> l.contains(" listed ")).count() == INFORMERS;
  }

  /** What the controller's {@code /metrics} serves now (its port is read from its log). */
  String metrics() throws IOException, InterruptedException {
    Matcher port =
        Pattern.compile("serving /metrics port=\"(\\d+)\"").matcher(Files.readString(log));
    if (!port.find()) {
      throw new IllegalStateException("the controller serves no metrics (yet)");
    }
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.group(1) + "/metrics"))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The exit status of a process that has ended. */
  int exitStatus() {
    return process.exitValue();
  }

  /** The process's resident set now ({@code VmRSS}), in KiB. */
  long rssKib() throws IOException {
    return statusField("VmRSS:");
  }

  /** CPU the process has used so far (user and system), in seconds. */
  double cpuSeconds() {
    return process.toHandle().info().totalCpuDuration().map(d -> d.toMillis() / 1e3).orElse(0.0);
  }

  /** The process's peak resident set ({@code VmHWM}), in KiB. */
  long peakRssKib() throws IOException {
    return statusField("VmHWM:");
  }

  private long statusField(String field) throws IOException {
    return Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status")).stream()
        .filter(l -> l.startsWith(field))
        .map(l -> l.substring(field.length()).trim().split("\\s+")[0])
        .mapToLong(Long::parseLong)
        .findFirst()
        .orElseThrow();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
