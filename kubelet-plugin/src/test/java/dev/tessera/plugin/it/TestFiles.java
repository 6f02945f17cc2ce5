package dev.tessera.plugin.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** File helpers for test programs that manage their own temp dirs. */
public final class TestFiles {
  private TestFiles() {}

  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * The last {@code lines} lines of {@code file}, joined by newlines: a log's end for a failure.
   */
  public static String tail(Path file, int lines) throws IOException {
    List<String> all = Files.readAllLines(file);
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
