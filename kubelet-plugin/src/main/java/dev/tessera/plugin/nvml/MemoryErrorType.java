package dev.tessera.plugin.nvml;

/** {@code nvmlMemoryErrorType_t}: for ECC, single-bit (corrected) and double-bit (uncorrected). */
public enum MemoryErrorType {
  CORRECTED(0),
  UNCORRECTED(1);

  private final int code;

  MemoryErrorType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }
}
