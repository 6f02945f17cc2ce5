package dev.tessera.plugin.sharing;

import java.nio.file.Path;

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
}
