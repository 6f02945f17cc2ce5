package dev.tessera.plugin.claim;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Something the plugin did, or could not do, for a claim, told to a person as an Event on the
 * ResourceClaim ({@code kubectl describe resourceclaim}, {@code kubectl events}). Each says its
 * reason and message; the reasons are Tessera's vocabulary, stable for people's filters.
 */
public sealed interface ClaimEvent {
  String reason();

  String message();

  /** Whether it is a Warning (something went wrong) rather than Normal. */
  default boolean warning() {
    return false;
  }

  /** The claim's devices are ready for its containers. */
  record Prepared(List<PreparedDevice> devices) implements ClaimEvent {
    public Prepared {
      devices = List.copyOf(devices);
    }

    @Override
    public String reason() {
      return "Prepared";
    }

    @Override
    public String message() {
      return "prepared "
          + devices.stream()
              .map(
                  d ->
                      d.device()
                          + " ("
                          + d.uuid()
                          + ", "
                          + (d.adminAccess()
                              ? "admin access"
                              : "sharing " + d.sharing().configName())
                          + ")")
              .collect(Collectors.joining(", "));
    }
  }

  /** A MIG device made for the claim (dynamic MIG). */
  record MigCreated(CreatedMig mig) implements ClaimEvent {
    @Override
    public String reason() {
      return "MigDeviceCreated";
    }

    @Override
    public String message() {
      return "created MIG device %s (profile %s, %s) on GPU %s"
          .formatted(mig.device(), mig.profile(), mig.uuid(), mig.gpuUuid());
    }
  }

  /** A MIG device made for the claim, destroyed as the claim let it go. */
  record MigDestroyed(CreatedMig mig) implements ClaimEvent {
    @Override
    public String reason() {
      return "MigDeviceDestroyed";
    }

    @Override
    public String message() {
      return "destroyed MIG device %s (profile %s, %s) on GPU %s"
          .formatted(
              mig.device(),
              mig.profile(),
              mig.uuid() == null ? "never made" : mig.uuid(),
              mig.gpuUuid());
    }
  }

  /** The claim is the first MPS client of a device: its control daemon was started. */
  record MpsStarted(String device, String uuid) implements ClaimEvent {
    @Override
    public String reason() {
      return "MpsDaemonStarted";
    }

    @Override
    public String message() {
      return "started the MPS control daemon of " + device + " (" + uuid + ")";
    }
  }

  /** The claim joins a device's MPS daemon that other claims already use. */
  record MpsJoined(String device, String uuid) implements ClaimEvent {
    @Override
    public String reason() {
      return "MpsDaemonJoined";
    }

    @Override
    public String message() {
      return "joined the running MPS control daemon of " + device + " (" + uuid + ")";
    }
  }

  /** The claim is the first to time-slice a GPU: its time-slice was set. */
  record TimeSliceSet(String device, String uuid, String interval) implements ClaimEvent {
    @Override
    public String reason() {
      return "TimeSliceSet";
    }

    @Override
    public String message() {
      return "set the time-slice of " + device + " (" + uuid + ") to " + interval;
    }
  }

  /** The prepare failed; the kubelet will retry. The message is the PrepareException's. */
  record PrepareFailed(String why) implements ClaimEvent {
    @Override
    public String reason() {
      return "PrepareFailed";
    }

    @Override
    public String message() {
      return why == null ? "prepare failed" : why;
    }

    @Override
    public boolean warning() {
      return true;
    }
  }

  /** The claim's devices were released. */
  record Unprepared(List<String> devices) implements ClaimEvent {
    public Unprepared {
      devices = List.copyOf(devices);
    }

    @Override
    public String reason() {
      return "Unprepared";
    }

    @Override
    public String message() {
      return devices.isEmpty() ? "unprepared" : "unprepared " + String.join(", ", devices);
    }
  }
}
