package dev.tessera.plugin.nvml;

import java.util.OptionalInt;

/**
 * {@code nvmlEventData_t}: one event from an event set.
 *
 * @param eventType one of {@link NvmlEventType}
 * @param eventData the XID for {@link NvmlEventType#XID_CRITICAL_ERROR}, else 0
 */
public record NvmlEvent(
    NvmlHandle.Device device,
    long eventType,
    long eventData,
    int gpuInstanceId,
    int computeInstanceId) {

  /** NVML's marker for "not attributable to a GPU/compute instance". */
  static final int NO_INSTANCE = 0xFFFFFFFF;

  public boolean is(long type) {
    return (eventType & type) != 0;
  }

  /** The GPU instance the event is attributed to, when MIG is on and NVML knows it. */
  public OptionalInt gpuInstance() {
    return gpuInstanceId == NO_INSTANCE ? OptionalInt.empty() : OptionalInt.of(gpuInstanceId);
  }

  public OptionalInt computeInstance() {
    return computeInstanceId == NO_INSTANCE
        ? OptionalInt.empty()
        : OptionalInt.of(computeInstanceId);
  }
}
