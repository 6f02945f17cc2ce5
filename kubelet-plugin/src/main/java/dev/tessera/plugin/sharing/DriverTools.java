package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The driver's command-line tools under the driver root ({@code usr/bin/nvidia-smi}, {@code
 * usr/bin/nvidia-cuda-mps-control}), run with the driver root's libraries first on the library path
 * so a containerized plugin uses the host's driver.
 */
public final class DriverTools {
  private final Path driverRoot;
  private final ProcessRunner runner;

  public DriverTools(Path driverRoot, ProcessRunner runner) {
    this.driverRoot = driverRoot;
    this.runner = runner;
  }

  /** Runs {@code tool}; a non-zero exit is an {@link IOException} naming the command. */
  public ProcessRunner.Result run(
      String tool, List<String> args, Map<String, String> env, String stdin) throws IOException {
    ProcessRunner.Result result = tryRun(tool, args, env, stdin);
    if (!result.ok()) {
      throw new IOException(
          tool
              + " "
              + String.join(" ", args)
              + " exited "
              + result.exitCode()
              + ": "
              + result.output());
    }
    return result;
  }

  /** Runs {@code tool} and returns what it said, whatever its exit status. */
  public ProcessRunner.Result tryRun(
      String tool, List<String> args, Map<String, String> env, String stdin) throws IOException {
    var command = new ArrayList<String>();
    command.add(driverRoot.resolve("usr/bin").resolve(tool).toString());
    command.addAll(args);
    var fullEnv = new HashMap<>(env);
    Path libs = driverRoot.resolve("usr/lib/x86_64-linux-gnu");
    if (!driverRoot.toString().equals("/") && Files.isDirectory(libs)) {
      fullEnv.put("LD_LIBRARY_PATH", libs.toString());
    }
    return runner.run(command, fullEnv, stdin);
  }
}
