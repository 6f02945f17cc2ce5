package dev.tessera.plugin.claim;

import dev.tessera.api.config.Sharing;

/**
 * The sharing settings a device was prepared with, as the checkpoint keeps them: the planner
 * compares a new claim against them (one time-slice per GPU, MPS limits that fit the device)
 * without reading the other claims again, also after a restart.
 *
 * @param timeSliceInterval the interval of a time-sliced GPU, else {@code null}
 * @param activeThreadPercentage the MPS active thread percentage, when set
 * @param pinnedMemoryBytes the MPS pinned device memory limit, when set
 */
public record SharingSettings(
    String timeSliceInterval, Integer activeThreadPercentage, Long pinnedMemoryBytes) {
  public static final SharingSettings NONE = new SharingSettings(null, null, null);

  public static SharingSettings of(Sharing sharing) {
    return switch (sharing) {
      case Sharing.Exclusive e -> NONE;
      case Sharing.TimeSlicing t -> new SharingSettings(t.interval().name(), null, null);
      case Sharing.Mps m ->
          new SharingSettings(
              null,
              m.defaultActiveThreadPercentage().isPresent()
                  ? m.defaultActiveThreadPercentage().getAsInt()
                  : null,
              m.defaultPinnedDeviceMemoryLimitBytes().isPresent()
                  ? m.defaultPinnedDeviceMemoryLimitBytes().getAsLong()
                  : null);
    };
  }
}
