package dev.tessera.plugin.nvml;

/**
 * The one exception for every failed NVML call: the return code, its name, NVML's own text for it
 * and the function that returned it.
 */
public final class NvmlException extends RuntimeException {
  private final int code;
  private final String call;
  private final String description;

  public NvmlException(String call, int code, String description) {
    super(
        call
            + " failed: "
            + NvmlReturn.nameOf(code)
            + " ("
            + code
            + ")"
            + (description == null || description.isEmpty() ? "" : ": " + description));
    this.call = call;
    this.code = code;
    this.description = description == null ? "" : description;
  }

  /** The {@code nvmlReturn_t} value. */
  public int code() {
    return code;
  }

  /** The code's name, e.g. {@code NVML_ERROR_NOT_SUPPORTED}. */
  public String codeName() {
    return NvmlReturn.nameOf(code);
  }

  /** The NVML function that failed, e.g. {@code nvmlDeviceGetUUID}. */
  public String call() {
    return call;
  }

  /** What {@code nvmlErrorString} says about the code. */
  public String description() {
    return description;
  }

  public boolean is(NvmlReturn ret) {
    return code == ret.code();
  }
}
