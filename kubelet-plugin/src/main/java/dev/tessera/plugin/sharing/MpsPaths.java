package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where each device's MPS daemon keeps its pipe, log and shared-memory directories: {@code <data
 * dir>/mps/<device UUID>/{pipe,log,shm}}. Containers of the device's claims mount the pipe
 * directory and the shared-memory directory.
 */
public record MpsPaths(Path root) {
  /** Where containers find the daemon's pipe directory. */
  public static final String CONTAINER_PIPE_DIR = "/tmp/nvidia-mps";

  public Path deviceDir(String deviceUuid) {
    return root.resolve(deviceUuid);
  }

  public Path pipeDir(String deviceUuid) {
    return deviceDir(deviceUuid).resolve("pipe");
  }

  public Path logDir(String deviceUuid) {
    return deviceDir(deviceUuid).resolve("log");
  }

  public Path shmDir(String deviceUuid) {
    return deviceDir(deviceUuid).resolve("shm");
  }

  /** The pid file the control daemon writes into its pipe directory. */
  public Path pidFile(String deviceUuid) {
    return pipeDir(deviceUuid).resolve("nvidia-cuda-mps-control.pid");
  }

  /** What the control daemon and every call of its tool need: the device and the two dirs. */
  public Map<String, String> daemonEnv(String deviceUuid) {
    return Map.of(
        "CUDA_VISIBLE_DEVICES", deviceUuid,
        "CUDA_MPS_PIPE_DIRECTORY", pipeDir(deviceUuid).toString(),
        "CUDA_MPS_LOG_DIRECTORY", logDir(deviceUuid).toString());
  }

  /** Makes the device's pipe, log and shared-memory directories. */
  public void createDeviceDirs(String deviceUuid) throws IOException {
    Files.createDirectories(pipeDir(deviceUuid));
    Files.createDirectories(logDir(deviceUuid));
    Files.createDirectories(shmDir(deviceUuid));
  }

  /** The devices that have daemon directories here. */
  public List<String> devices() throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(root)) {
      return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList();
    }
  }

  /** Removes the device's directories, whatever is left in them. */
  public void deleteDeviceDir(String deviceUuid) throws IOException {
    Path dir = deviceDir(deviceUuid);
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
