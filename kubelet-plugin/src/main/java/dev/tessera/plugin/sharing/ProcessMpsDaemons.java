package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MPS control daemons run as children of this plugin ({@code nvidia-cuda-mps-control -d}): a plugin
 * outside a pod, where there is no image to run a daemon's pod from. A daemon is found through the
 * pid file it writes into its pipe directory, so a plugin that restarts finds the daemons it
 * started instead of starting them twice; it dies with the plugin's pod, which is why a plugin in a
 * pod runs {@link PodMpsDaemons} instead.
 */
public final class ProcessMpsDaemons implements MpsDaemons {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessMpsDaemons.class);
  private static final String TOOL = "nvidia-cuda-mps-control";

  private final MpsPaths paths;
  private final DriverTools tools;

  public ProcessMpsDaemons(MpsPaths paths, DriverTools tools) {
    this.paths = paths;
    this.tools = tools;
  }

  @Override
  public MpsPaths paths() {
    return paths;
  }

  @Override
  public boolean running(String deviceUuid) {
    return pid(deviceUuid).isPresent();
  }

  /** The pid of the device's running daemon, if it runs. */
  public Optional<Long> pid(String deviceUuid) {
    try {
      long pid = Long.parseLong(Files.readString(paths.pidFile(deviceUuid)).strip());
      return alive(pid) ? Optional.of(pid) : Optional.empty();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  @Override
  public void start(String deviceUuid) throws IOException {
    if (running(deviceUuid)) {
      return;
    }
    paths.createDeviceDirs(deviceUuid);
    tools.run(TOOL, List.of("-d"), env(deviceUuid), "");
    LOG.atInfo()
        .addKeyValue("device.uuid", deviceUuid)
        .addKeyValue("pid", pid(deviceUuid).orElse(null))
        .log("MPS control daemon started");
  }

  @Override
  public void stop(String deviceUuid) throws IOException {
    if (running(deviceUuid)) {
      ProcessRunner.Result quit = tools.tryRun(TOOL, List.of(), env(deviceUuid), "quit\n");
      if (!quit.ok() && running(deviceUuid)) {
        throw new IOException(
            "MPS control daemon of " + deviceUuid + " did not quit: " + quit.output());
      }
      LOG.atInfo().addKeyValue("device.uuid", deviceUuid).log("MPS control daemon stopped");
    }
    paths.deleteDeviceDir(deviceUuid);
  }

  @Override
  public List<String> known() throws IOException {
    return paths.devices();
  }

  private Map<String, String> env(String deviceUuid) {
    return paths.daemonEnv(deviceUuid);
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
}
