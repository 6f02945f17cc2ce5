package dev.tessera.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A module's {@code jvm.options} as its image's entrypoint passes them: one flag a line, comments
 * dropped; and the system properties {@code kubectl-tessera}'s launcher passes its JVM.
 */
final class JvmOptions {
  private JvmOptions() {}

  static List<String> read(Path file) throws IOException {
    return Files.readAllLines(file).stream()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .toList();
  }

  /**
   * The {@code -D} flags of the {@code exec} line that {@code installer}
   * (hack/install-kubectl-tessera) writes into the launcher, as written there (no shell variable
   * among them).
   */
  static List<String> launcherProperties(Path installer) throws IOException {
    return Files.readAllLines(installer).stream()
        .dropWhile(line -> !line.startsWith("exec "))
        .takeWhile(line -> !line.equals("LAUNCHER"))
        .flatMap(line -> Arrays.stream(line.strip().split("\\s+")))
        .filter(flag -> flag.startsWith("-D") && !flag.contains("$"))
        .toList();
  }
}
