package dev.tessera.plugin.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes files so that a reader (containerd, a restarted plugin) sees either the old content or the
 * new one, never a torn file: temp file in the same directory, fsync, rename, fsync the directory.
 * Callers serialize writes to the same file (the plugin holds its prepare lock), so the temp file
 * has a fixed name: a dot name with a {@code .tmp} suffix, which CDI's spec scanner ignores.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /** Opens a file for writing; tests pass one whose channel fails as a full disk does. */
  @FunctionalInterface
  public interface Opener {
    FileChannel open(Path file) throws IOException;
  }

  public static void write(Path target, byte[] content) throws IOException {
    write(target, content, AtomicFiles::openForWrite);
  }

  /**
   * Writes through {@code opener}. When the temp file cannot be written whole (a full disk, an I/O
   * error), it is deleted and the target is left as it was.
   */
  public static void write(Path target, byte[] content, Opener opener) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path temp = dir.resolve("." + target.getFileName() + ".tmp");
    try {
      try {
        writeSynced(opener, temp, content);
      } catch (java.nio.file.NoSuchFileException e) {
        Files.createDirectories(dir);
        writeSynced(opener, temp, content);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    syncDirectory(dir);
  }

  /** Deletes the file if present and makes the deletion durable; returns whether it existed. */
  public static boolean delete(Path target) throws IOException {
    boolean existed = Files.deleteIfExists(target);
    if (existed) {
      syncDirectory(target.toAbsolutePath().getParent());
    }
    return existed;
  }

  private static FileChannel openForWrite(Path file) throws IOException {
    return FileChannel.open(
        file,
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
  }

  private static void writeSynced(Opener opener, Path file, byte[] content) throws IOException {
    try (FileChannel channel = opener.open(file)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(false);
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
