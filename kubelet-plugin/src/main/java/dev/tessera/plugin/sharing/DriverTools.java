package dev.tessera.plugin.sharing;

import dev.tessera.plugin.cdi.DriverRoot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The driver's command-line tools under the driver root ({@code usr/bin/nvidia-smi}, {@code
 * usr/bin/nvidia-cuda-mps-control}), run with the driver root's libraries so a containerized plugin
 * uses the host's driver. A root with a dynamic loader of its own (a host's /, the GPU operator's
 * driver root) runs its tools through that loader and its own libraries: the plugin image's loader
 * with the host's libc would fail wherever the two glibc differ. Other tools (the simulator's
 * scripts, a root without a loader) run as they are.
 */
public final class DriverTools {
  private static final String LOADER = "lib64/ld-linux-x86-64.so.2";
  private static final byte[] ELF = {0x7f, 'E', 'L', 'F'};

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
    Command command = command(tool, args, env);
    return runner.run(command.argv(), command.env(), stdin);
  }

  /** A tool's command line and environment, as this plugin would run it. */
  public record Command(List<String> argv, Map<String, String> env) {
    public Command {
      argv = List.copyOf(argv);
      env = Map.copyOf(env);
    }
  }

  /**
   * How {@code tool} is run from this driver root: also what an MPS daemon's pod runs, which mounts
   * the driver root where the plugin sees it.
   */
  public Command command(String tool, List<String> args, Map<String, String> env) {
    Path program = driverRoot.resolve("usr/bin").resolve(tool);
    var command = new ArrayList<String>();
    var fullEnv = new HashMap<>(env);
    Optional<Path> loader = RootedPath.resolve(driverRoot, LOADER);
    if (loader.isPresent() && isElf(program)) {
      command.addAll(List.of(loader.get().toString(), "--library-path", libraryPath()));
    } else {
      Path libs = driverRoot.resolve("usr/lib/x86_64-linux-gnu");
      if (!driverRoot.toString().equals("/") && Files.isDirectory(libs)) {
        fullEnv.put("LD_LIBRARY_PATH", libs.toString());
      }
    }
    command.add(program.toString());
    command.addAll(args);
    return new Command(command, fullEnv);
  }

  /** The root's library dirs, resolved within it, for its loader. */
  private String libraryPath() {
    var dirs = new ArrayList<String>();
    for (String dir : DriverRoot.LIBRARY_DIRS) {
      RootedPath.resolve(driverRoot, dir)
          .filter(Files::isDirectory)
          .map(Path::toString)
          .filter(d -> !dirs.contains(d))
          .ifPresent(dirs::add);
    }
    return String.join(":", dirs);
  }

  private static boolean isElf(Path program) {
    try (InputStream in = Files.newInputStream(program)) {
      return Arrays.equals(in.readNBytes(ELF.length), ELF);
    } catch (IOException e) {
      return false; // run it as it is: the runner reports what goes wrong
    }
  }
}
