package dev.tessera.plugin.nvml;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** NVML's return codes ({@code nvmlReturn_t}), named as in {@code nvml.h}. */
public enum NvmlReturn {
  NVML_SUCCESS(0),
  NVML_ERROR_UNINITIALIZED(1),
  NVML_ERROR_INVALID_ARGUMENT(2),
  NVML_ERROR_NOT_SUPPORTED(3),
  NVML_ERROR_NO_PERMISSION(4),
  NVML_ERROR_ALREADY_INITIALIZED(5),
  NVML_ERROR_NOT_FOUND(6),
  NVML_ERROR_INSUFFICIENT_SIZE(7),
  NVML_ERROR_INSUFFICIENT_POWER(8),
  NVML_ERROR_DRIVER_NOT_LOADED(9),
  NVML_ERROR_TIMEOUT(10),
  NVML_ERROR_IRQ_ISSUE(11),
  NVML_ERROR_LIBRARY_NOT_FOUND(12),
  NVML_ERROR_FUNCTION_NOT_FOUND(13),
  NVML_ERROR_CORRUPTED_INFOROM(14),
  NVML_ERROR_GPU_IS_LOST(15),
  NVML_ERROR_RESET_REQUIRED(16),
  NVML_ERROR_OPERATING_SYSTEM(17),
  NVML_ERROR_LIB_RM_VERSION_MISMATCH(18),
  NVML_ERROR_IN_USE(19),
  NVML_ERROR_MEMORY(20),
  NVML_ERROR_NO_DATA(21),
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED(22),
  NVML_ERROR_INSUFFICIENT_RESOURCES(23),
  NVML_ERROR_FREQ_NOT_SUPPORTED(24),
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH(25),
  NVML_ERROR_DEPRECATED(26),
  NVML_ERROR_NOT_READY(27),
  NVML_ERROR_GPU_NOT_FOUND(28),
  NVML_ERROR_INVALID_STATE(29),
  NVML_ERROR_RESET_TYPE_NOT_SUPPORTED(30),
  NVML_ERROR_UNKNOWN(999);

  private static final Map<Integer, NvmlReturn> BY_CODE =
      Arrays.stream(values())
          .collect(Collectors.toUnmodifiableMap(r -> r.code, Function.identity()));

  private final int code;

  NvmlReturn(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static Optional<NvmlReturn> of(int code) {
    return Optional.ofNullable(BY_CODE.get(code));
  }

  /**
   * The code's name from {@code nvml.h}, or {@code NVML_RETURN_<code>} for one this build lacks.
   */
  public static String nameOf(int code) {
    return of(code).map(Enum::name).orElse("NVML_RETURN_" + code);
  }
}
