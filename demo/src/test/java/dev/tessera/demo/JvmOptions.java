package dev.tessera.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A module's {@code jvm.options} as its image's entrypoint passes them: one flag a line, comments
 * dropped.
 */
final class JvmOptions {
  private JvmOptions() {}

  static List<String> read(Path file) throws IOException {
    return Files.readAllLines(file).stream()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .toList();
  }
}
