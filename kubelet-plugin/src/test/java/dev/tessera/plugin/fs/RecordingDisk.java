package dev.tessera.plugin.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The file system's own calls, with each temp file written and each directory synced recorded. */
public final class RecordingDisk implements AtomicFiles.Disk {
  private final List<Path> written = new ArrayList<>();
  private final List<Path> syncedDirectories = new ArrayList<>();

  @Override
  public FileChannel open(Path file) throws IOException {
    written.add(file);
    return AtomicFiles.FILE_SYSTEM.open(file);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    syncedDirectories.add(dir);
    AtomicFiles.Disk.super.syncDirectory(dir);
  }

  /** The temp files written since the last {@link #clear}. */
  public List<Path> written() {
    return List.copyOf(written);
  }

  /** The directories synced since the last {@link #clear}. */
  public List<Path> syncedDirectories() {
    return List.copyOf(syncedDirectories);
  }

  public void clear() {
    written.clear();
    syncedDirectories.clear();
  }
}
