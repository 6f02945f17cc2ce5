package dev.tessera.plugin.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes files so that a reader (containerd, a restarted plugin) sees either the old content or the
 * new one, never a torn file: temp file in the same directory, fsync, rename, fsync the directory.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  public static void write(Path target, byte[] content) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    // A dot-prefixed temp name: CDI and other dir scanners skip files that don't end in
    // .json/.yaml.
    Path temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory(dir);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Deletes the file if present and makes the deletion durable; returns whether it existed. */
  public static boolean delete(Path target) throws IOException {
    boolean existed = Files.deleteIfExists(target);
    if (existed) {
      syncDirectory(target.toAbsolutePath().getParent());
    }
    return existed;
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
