package dev.tessera.plugin.sharing;

import dev.tessera.api.config.Sharing.TimeSliceInterval;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** The GPU settings sharing needs, through {@code nvidia-smi} as NVIDIA's own driver sets them. */
public final class NvidiaSmi {
  private final DriverTools tools;

  public NvidiaSmi(DriverTools tools) {
    this.tools = tools;
  }

  /** {@code DEFAULT} for time-slicing, {@code EXCLUSIVE_PROCESS} while an MPS daemon owns it. */
  public void setComputeMode(String gpuUuid, String mode) throws IOException {
    tools.run("nvidia-smi", List.of("-i", gpuUuid, "-c", mode), Map.of(), "");
  }

  /** The driver's time-slice values are the interval's ordinal: Default 0 … Long 3. */
  public void setTimeSlice(String gpuUuid, TimeSliceInterval interval) throws IOException {
    tools.run(
        "nvidia-smi",
        List.of(
            "compute-policy",
            "-i",
            gpuUuid,
            "--set-timeslice",
            Integer.toString(interval.ordinal())),
        Map.of(),
        "");
  }
}
