package dev.tessera.plugin.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.fs.AtomicFiles.Durability;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both kinds of write replace the file whole through a synced temp file; only a durable one syncs
 * the directory, so that the rename itself survives a power loss.
 */
class AtomicFilesTest {
  @TempDir Path dir;
  private final RecordingDisk disk = new RecordingDisk();

  @ParameterizedTest
  @EnumSource(Durability.class)
  void everyWriteSyncsTheFileAndOnlyADurableOneThenItsDirectory(Durability durability)
      throws Exception {
    Path file = dir.resolve("state.json");

    AtomicFiles.write(file, bytes("one"), durability, disk);
    AtomicFiles.write(file, bytes("two"), durability, disk);

    assertThat(Files.readString(file)).isEqualTo("two");
    assertThat(disk.written()).containsExactly(tempOf(file), tempOf(file));
    assertThat(disk.syncedDirectories())
        .isEqualTo(durability == Durability.DURABLE ? List.of(dir, dir) : List.of());
    assertNoTempFile();
  }

  @Test
  void onlyADurableDeleteOfAFileThatWasThereSyncsItsDirectory() throws Exception {
    Path file = dir.resolve("state.json");
    Files.writeString(file, "x");

    assertThat(AtomicFiles.delete(file, Durability.WHOLE, disk)).isTrue();
    assertThat(disk.syncedDirectories()).isEmpty();
    Files.writeString(file, "x");
    assertThat(AtomicFiles.delete(file, Durability.DURABLE, disk)).isTrue();
    assertThat(AtomicFiles.delete(file, Durability.DURABLE, disk)).isFalse();

    assertThat(file).doesNotExist();
    assertThat(disk.syncedDirectories()).containsExactly(dir);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Path tempOf(Path file) {
    return file.getParent().resolve("." + file.getFileName() + ".tmp");
  }

  private void assertNoTempFile() throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }
}
