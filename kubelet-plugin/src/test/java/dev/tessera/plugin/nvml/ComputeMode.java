package dev.tessera.plugin.nvml;

import java.util.Arrays;

/** {@code nvmlComputeMode_t}. */
public enum ComputeMode {
  DEFAULT(0),
  EXCLUSIVE_THREAD(1),
  PROHIBITED(2),
  EXCLUSIVE_PROCESS(3);

  private final int value;

  ComputeMode(int value) {
    this.value = value;
  }

  public int value() {
    return value;
  }

  public static ComputeMode of(int value) {
    return Arrays.stream(values())
        .filter(m -> m.value == value)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown NVML compute mode " + value));
  }
}
