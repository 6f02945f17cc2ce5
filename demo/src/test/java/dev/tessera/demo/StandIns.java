package dev.tessera.demo;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Stand-in executables for testing the hack/ scripts without the tools they drive (docker, kind,
 * kubectl, Helm): each records its arguments and stdin, then does what its bash body says. They go
 * first on the PATH of the scripts {@link #run} starts; {@link #calls} reads back what was asked.
 */
final class StandIns {
  /** What a stand-in was asked: its name, its arguments, what it read from stdin. */
  record Call(String tool, List<String> args, String stdin) {
    String line() {
      return tool + " " + String.join(" ", args);
    }
  }

  /** How a script ended. */
  record Result(int exitCode, String output, String errors) {}

  private final Path bin;
  private final Path log;

  /** Stand-ins in {@code dir}/bin, recording into {@code dir}/calls. */
  StandIns(Path dir) throws IOException {
    this.bin = Files.createDirectories(dir.resolve("bin"));
    this.log = Files.createDirectories(dir.resolve("calls"));
  }

  /** The folder the stand-ins are in (first on the scripts' PATH). */
  Path bin() {
    return bin;
  }

  /**
   * Adds stand-in {@code name}: it records the call, then runs {@code body} (bash, with the call's
   * arguments as {@code $@}; {@code $STANDIN_STATE} is a folder it may keep state in).
   */
  Path add(String name, String body) throws IOException {
    Path exe = bin.resolve(name);
    String script =
        """
        #!/usr/bin/env bash
        set -u
        calls=%s
        n=$(find "$calls" -name '*.args' | wc -l)
        n=$(printf '%%05d' "$n")
        { printf '%%s\\n' "%s"; printf '%%s\\n' "$@"; } >"$calls/$n.args"
        if [ ! -t 0 ]; then cat >"$calls/$n.stdin"; fi
        STANDIN_STATE=%s
        mkdir -p "$STANDIN_STATE"
        %s
        """
            .formatted(log, name, bin.resolveSibling("state"), body);
    Files.writeString(exe, script);
    Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
    return exe;
  }

  /** Every call so far, in order. */
  List<Call> calls() throws IOException {
    try (Stream<Path> files = Files.list(log)) {
      var calls = new ArrayList<Call>();
      for (Path args : files.filter(f -> f.toString().endsWith(".args")).sorted().toList()) {
        List<String> lines = Files.readAllLines(args);
        Path stdin = Path.of(args.toString().replace(".args", ".stdin"));
        calls.add(
            new Call(
                lines.get(0),
                List.copyOf(lines.subList(1, lines.size())),
                Files.exists(stdin) ? Files.readString(stdin) : ""));
      }
      return calls;
    }
  }

  /** The calls of one stand-in, each as one line: {@code tool arg arg...}. */
  List<String> calls(String tool) throws IOException {
    return calls().stream().filter(c -> c.tool().equals(tool)).map(Call::line).toList();
  }

  /**
   * Runs {@code script} with the stand-ins first on PATH (before {@code path}), this environment
   * plus {@code env}, stdin from /dev/null; fails the test after five minutes.
   */
  Result run(Path script, String path, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    var command = new ArrayList<String>();
    command.add(script.toString());
    command.addAll(Arrays.asList(args));
    Path out = Files.createTempFile(log, "run", ".out");
    Path err = Files.createTempFile(log, "run", ".err");
    var builder =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    builder.environment().putAll(env);
    builder.environment().put("PATH", bin + ":" + path);
    Process process = builder.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail(
          script
              + " did not finish in 5 minutes:\n"
              + Files.readString(out)
              + Files.readString(err));
    }
    var result = new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    System.out.printf(
        "--- %s %s: exit %d%n%s%s",
        script.getFileName(),
        String.join(" ", args),
        result.exitCode(),
        result.output(),
        result.errors());
    return result;
  }

  /**
   * {@code path} with each folder holding a {@code tool} replaced by a folder of links to all its
   * other entries, under {@code work}/path-without-{@code tool}: the same commands, less that one.
   */
  static String without(String tool, String path, Path work) throws IOException {
    var dirs = new ArrayList<String>();
    int i = 0;
    for (String dir : path.split(":")) {
      Path d = Path.of(dir);
      if (dir.isEmpty() || !Files.exists(d.resolve(tool))) {
        dirs.add(dir);
        continue;
      }
      Path copy = Files.createDirectories(work.resolve("path-without-" + tool).resolve("" + i++));
      try (Stream<Path> entries = Files.list(d)) {
        for (Path entry : entries.toList()) {
          if (!entry.getFileName().toString().equals(tool)) {
            Files.createSymbolicLink(copy.resolve(entry.getFileName()), entry);
          }
        }
      }
      dirs.add(copy.toString());
    }
    return dirs.stream().collect(Collectors.joining(":"));
  }
}
