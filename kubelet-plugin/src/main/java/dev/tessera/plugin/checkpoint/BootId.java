package dev.tessera.plugin.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's boot ID, which changes on every reboot. */
public final class BootId {
  private BootId() {}

  public static String read(Path bootIdFile) {
    try {
      return Files.readString(bootIdFile).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read boot ID from " + bootIdFile, e);
    }
  }
}
