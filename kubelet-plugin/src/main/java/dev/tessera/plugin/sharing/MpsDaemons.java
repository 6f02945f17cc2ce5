package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MPS control daemons this plugin runs, one per device, each with its directories under {@link
 * MpsPaths}. A daemon is found through the pid file it writes into its pipe directory, so a plugin
 * that restarts finds the daemons it started instead of starting them twice.
 */
public final class MpsDaemons {
  private static final Logger LOG = LoggerFactory.getLogger(MpsDaemons.class);
  private static final String TOOL = "nvidia-cuda-mps-control";

  private final MpsPaths paths;
  private final DriverTools tools;

  public MpsDaemons(MpsPaths paths, DriverTools tools) {
    this.paths = paths;
    this.tools = tools;
  }

  public MpsPaths paths() {
    return paths;
  }

  /** The pid of the device's running daemon, if it runs. */
  public Optional<Long> running(String deviceUuid) {
    try {
      long pid = Long.parseLong(Files.readString(paths.pidFile(deviceUuid)).strip());
      return alive(pid) ? Optional.of(pid) : Optional.empty();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Starts the device's daemon, limited to that device, unless it already runs. */
  public void start(String deviceUuid) throws IOException {
    if (running(deviceUuid).isPresent()) {
      return;
    }
    Files.createDirectories(paths.pipeDir(deviceUuid));
    Files.createDirectories(paths.logDir(deviceUuid));
    Files.createDirectories(paths.shmDir(deviceUuid));
    tools.run(TOOL, List.of("-d"), env(deviceUuid), "");
    LOG.atInfo()
        .addKeyValue("device.uuid", deviceUuid)
        .addKeyValue("pid", running(deviceUuid).orElse(null))
        .log("MPS control daemon started");
  }

  /** Tells the device's daemon to quit (if it runs) and removes its directories. */
  public void stop(String deviceUuid) throws IOException {
    if (running(deviceUuid).isPresent()) {
      ProcessRunner.Result quit = tools.tryRun(TOOL, List.of(), env(deviceUuid), "quit\n");
      if (!quit.ok() && running(deviceUuid).isPresent()) {
        throw new IOException(
            "MPS control daemon of " + deviceUuid + " did not quit: " + quit.output());
      }
      LOG.atInfo().addKeyValue("device.uuid", deviceUuid).log("MPS control daemon stopped");
    }
    deleteTree(paths.deviceDir(deviceUuid));
  }

  /** The devices that have daemon directories here, running or not. */
  public List<String> known() throws IOException {
    if (!Files.isDirectory(paths.root())) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(paths.root())) {
      return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList();
    }
  }

  private Map<String, String> env(String deviceUuid) {
    return Map.of(
        "CUDA_VISIBLE_DEVICES", deviceUuid,
        "CUDA_MPS_PIPE_DIRECTORY", paths.pipeDir(deviceUuid).toString(),
        "CUDA_MPS_LOG_DIRECTORY", paths.logDir(deviceUuid).toString());
  }

  /** Alive and not a zombie: a daemon that exited but was not reaped yet is gone for us. */
  private static boolean alive(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      int endOfName = stat.lastIndexOf(')');
      return endOfName > 0 && stat.length() > endOfName + 2 && stat.charAt(endOfName + 2) != 'Z';
    } catch (IOException e) {
      return false;
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
