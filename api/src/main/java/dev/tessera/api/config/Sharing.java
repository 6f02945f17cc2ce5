package dev.tessera.api.config;

import java.util.OptionalInt;
import java.util.OptionalLong;

/** The sharing strategy of a device, with the settings that belong to it. */
public sealed interface Sharing permits Sharing.Exclusive, Sharing.TimeSlicing, Sharing.Mps {

  /** Whether a device with this strategy may be prepared for more than one claim at once. */
  boolean allowsSharing();

  /** The strategy (its {@link SharingStrategy#configName()} is the name written in the config). */
  SharingStrategy strategy();

  /** One claim owns the device. */
  record Exclusive() implements Sharing {
    @Override
    public boolean allowsSharing() {
      return false;
    }

    @Override
    public SharingStrategy strategy() {
      return SharingStrategy.EXCLUSIVE;
    }
  }

  /** Claims take turns on the GPU; the interval is a whole-GPU setting. */
  record TimeSlicing(TimeSliceInterval interval) implements Sharing {
    @Override
    public boolean allowsSharing() {
      return true;
    }

    @Override
    public SharingStrategy strategy() {
      return SharingStrategy.TIME_SLICING;
    }
  }

  /**
   * Claims share the device through one MPS control daemon.
   *
   * @param defaultActiveThreadPercentage 1–100, when set
   * @param defaultPinnedDeviceMemoryLimitBytes &gt; 0, when set
   */
  record Mps(
      OptionalInt defaultActiveThreadPercentage, OptionalLong defaultPinnedDeviceMemoryLimitBytes)
      implements Sharing {
    @Override
    public boolean allowsSharing() {
      return true;
    }

    @Override
    public SharingStrategy strategy() {
      return SharingStrategy.MPS;
    }
  }

  /** The time-slice lengths the driver offers ({@code nvidia-smi compute-policy} values 0–3). */
  enum TimeSliceInterval {
    Default,
    Short,
    Medium,
    Long
  }
}
