package dev.tessera.plugin.nvml;

/** The {@code nvmlEventType*} bits a DRA driver registers for. */
public final class NvmlEventType {
  public static final long SINGLE_BIT_ECC_ERROR = 0x1L;
  public static final long DOUBLE_BIT_ECC_ERROR = 0x2L;
  public static final long XID_CRITICAL_ERROR = 0x8L;

  /** What the health monitor listens to: XIDs (a lost GPU reports XID 79) and double-bit ECC. */
  public static final long HEALTH = XID_CRITICAL_ERROR | DOUBLE_BIT_ECC_ERROR;

  private NvmlEventType() {}
}
