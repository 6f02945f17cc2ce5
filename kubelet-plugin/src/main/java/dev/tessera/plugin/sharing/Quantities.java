package dev.tessera.plugin.sharing;

/** Byte counts as people read them in errors and env values. */
final class Quantities {
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  private Quantities() {}

  /** {@code 40Gi} when whole gibibytes, else {@code 1536Mi}, else plain bytes. */
  static String bytes(long bytes) {
    if (bytes % GIB == 0) {
      return bytes / GIB + "Gi";
    }
    if (bytes % MIB == 0) {
      return bytes / MIB + "Mi";
    }
    return Long.toString(bytes);
  }
}
