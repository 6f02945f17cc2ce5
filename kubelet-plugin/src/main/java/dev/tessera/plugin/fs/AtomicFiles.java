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
 * new one, never a torn file: temp file in the same directory, fsync, rename, and, for a {@link
 * Durability#DURABLE} write, fsync the directory. Callers serialize writes to the same file (the
 * plugin holds its prepare lock), so the temp file has a fixed name: a dot name with a {@code .tmp}
 * suffix, which CDI's spec scanner ignores.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /**
   * What a write or a delete promises after a power loss. A plugin process that dies loses nothing
   * either way (the kernel keeps what it was given); only a power loss or a kernel crash does, and
   * both start a new boot.
   */
  public enum Durability {
    /** The change is on disk when the call returns: the file, then its directory, is synced. */
    DURABLE,
    /**
     * After a power loss the file holds the old content or the new, whole, and which one is not
     * promised: the file is synced, its rename is not. For a change whose loss the next boot's
     * start-up makes harmless (it rolls back every claim of an earlier boot), and which then costs
     * one sync, not two.
     */
    WHOLE
  }

  /** The calls a write makes to the file system that tests replace (a disk that fills up). */
  @FunctionalInterface
  public interface Disk {
    /** Opens a file for writing. */
    FileChannel open(Path file) throws IOException;

    /** Makes the directory's entries (a rename, a delete) durable. */
    default void syncDirectory(Path dir) throws IOException {
      try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
        channel.force(true);
      }
    }
  }

  /** The file system's own calls. */
  public static final Disk FILE_SYSTEM = AtomicFiles::openForWrite;

  public static void write(Path target, byte[] content, Durability durability) throws IOException {
    write(target, content, durability, FILE_SYSTEM);
  }

  /**
   * Writes through {@code disk}. When the temp file cannot be written whole (a full disk, an I/O
   * error), it is deleted and the target is left as it was.
   */
  public static void write(Path target, byte[] content, Durability durability, Disk disk)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path temp = dir.resolve("." + target.getFileName() + ".tmp");
    try {
      try {
        writeSynced(disk, temp, content);
      } catch (java.nio.file.NoSuchFileException e) {
        Files.createDirectories(dir);
        writeSynced(disk, temp, content);
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
    if (durability == Durability.DURABLE) {
      disk.syncDirectory(dir);
    }
  }

  /**
   * Deletes the file if present, a {@link Durability#DURABLE} deletion synced to disk; returns
   * whether it existed.
   */
  public static boolean delete(Path target, Durability durability) throws IOException {
    return delete(target, durability, FILE_SYSTEM);
  }

  public static boolean delete(Path target, Durability durability, Disk disk) throws IOException {
    boolean existed = Files.deleteIfExists(target);
    if (existed && durability == Durability.DURABLE) {
      disk.syncDirectory(target.toAbsolutePath().getParent());
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

  private static void writeSynced(Disk disk, Path file, byte[] content) throws IOException {
    try (FileChannel channel = disk.open(file)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(false);
    }
  }
}
