package dev.tessera.demo;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The host's view of a pod's processes on the local cluster, whose containers run on this host. */
final class PodProcesses {
  private PodProcesses() {}

  /**
   * The plugin container's process: the one whose environment names the pod's UID and whose parent
   * does not (its children, the MPS and nvidia-smi stand-ins, inherit the environment).
   */
  static long pluginPid(String podUid) throws IOException {
    String instance = "TESSERA_INSTANCE=" + podUid;
    List<Long> pids;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      pids =
          procs
              .filter(p -> p.getFileName().toString().matches("\\d+"))
              .filter(p -> environment(p).contains(instance))
              .map(p -> Long.parseLong(p.getFileName().toString()))
              .toList();
    }
    for (long pid : pids) {
      long parent = Long.parseLong(field(read(Path.of("/proc/" + pid + "/status")), "PPid"));
      if (!pids.contains(parent)) {
        return pid;
      }
    }
    throw new AssertionError("no process of the plugin pod " + podUid);
  }

  private static List<String> environment(Path proc) {
    try {
      return List.of(
          new String(Files.readAllBytes(proc.resolve("environ")), StandardCharsets.UTF_8)
              .split("\0"));
    } catch (IOException e) {
      return List.of(); // gone, or not ours to read
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String field(String status, String name) {
    return status
        .lines()
        .filter(l -> l.startsWith(name + ":"))
        .map(l -> l.substring(name.length() + 1).strip())
        .findFirst()
        .orElseGet(() -> fail("no " + name + " in /proc/<pid>/status"));
  }
}
