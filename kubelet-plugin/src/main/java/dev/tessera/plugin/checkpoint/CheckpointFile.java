package dev.tessera.plugin.checkpoint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checkpoint file's format ({@value #API_VERSION}), owned here and nowhere else: the plugin's
 * own types change as they like, and {@link CheckpointRecords} translates. Fields added later are
 * optional, so a file written before them still reads.
 */
public record CheckpointFile(String apiVersion, String bootId, Map<String, Claim> claims) {
  public static final String API_VERSION = "checkpoint.gpu.tessera.dev/v1";

  public CheckpointFile {
    claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
  }

  /** The two phases of a prepare: device work may be half done until the claim is completed. */
  public enum State {
    PrepareStarted,
    PrepareCompleted
  }

  /**
   * One claim.
   *
   * @param createdMig the MIG devices made for it (absent in files written before dynamic MIG)
   */
  public record Claim(
      State state, String namespace, String name, List<Device> devices, List<Mig> createdMig) {
    public Claim {
      devices = List.copyOf(devices);
      createdMig = createdMig == null ? List.of() : List.copyOf(createdMig);
    }
  }

  /**
   * One prepared device.
   *
   * @param settings absent in files written before sharing settings were kept
   * @param adminAccess absent (false) in files written before admin access
   */
  public record Device(
      List<String> requestNames,
      String pool,
      String device,
      List<String> cdiDeviceIds,
      String uuid,
      String sharing,
      String shareId,
      Settings settings,
      boolean adminAccess) {
    public Device {
      requestNames = List.copyOf(requestNames);
      cdiDeviceIds = List.copyOf(cdiDeviceIds);
    }
  }

  /** A device's sharing settings; every field is optional. */
  public record Settings(
      String timeSliceInterval, Integer activeThreadPercentage, Long pinnedMemoryBytes) {}

  /** A MIG device made (or about to be made) for a claim; ids and UUID are null until made. */
  public record Mig(
      String gpuUuid,
      String device,
      int profileId,
      String profile,
      Placement placement,
      Integer gpuInstanceId,
      Integer computeInstanceId,
      String uuid,
      boolean enabledMigMode) {}

  /** A MIG placement: its first memory slice and how many it spans. */
  public record Placement(int start, int size) {}
}
