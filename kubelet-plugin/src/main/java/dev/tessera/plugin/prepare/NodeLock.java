package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.PrepareException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serializes prepare and unprepare on the node: between the threads of this plugin, and between
 * plugin processes — a rolling upgrade runs the old and the new instance side by side, both
 * registered with the kubelet, both writing the one checkpoint. An OS file lock next to the
 * checkpoint is what the processes share; it goes with a process that dies.
 */
public final class NodeLock {
  private final ReentrantLock local = new ReentrantLock();
  private final Path file;
  private FileChannel channel; // guarded by local

  public NodeLock(Path file) {
    this.file = file;
  }

  /** The lock of the node whose checkpoint is {@code checkpointFile}: a file beside it. */
  public static NodeLock beside(Path checkpointFile) {
    return new NodeLock(checkpointFile.resolveSibling(checkpointFile.getFileName() + ".lock"));
  }

  /** Held until closed: this thread alone in this process, this process alone on the node. */
  public Held acquire() throws PrepareException {
    local.lock();
    try {
      if (channel == null || !channel.isOpen()) {
        Files.createDirectories(file.getParent());
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      }
      return new Held(lockFile());
    } catch (IOException | RuntimeException | InterruptedException e) {
      local.unlock();
      throw new PrepareException("cannot lock " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The OS lock, waiting for another process to release it. Java refuses a second lock on a file
   * this JVM already locks through another channel (two plugins in one test JVM): wait for that one
   * too.
   */
  private FileLock lockFile() throws IOException, InterruptedException {
    while (true) {
      try {
        return channel.lock();
      } catch (OverlappingFileLockException e) {
        Thread.sleep(1);
      }
    }
  }

  public final class Held implements AutoCloseable {
    private final FileLock fileLock;

    private Held(FileLock fileLock) {
      this.fileLock = fileLock;
    }

    @Override
    public void close() {
      try {
        if (fileLock != null) {
          fileLock.release();
        }
      } catch (IOException e) {
        // The channel is gone; the lock went with it.
      } finally {
        local.unlock();
      }
    }
  }
}
