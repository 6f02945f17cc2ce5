package dev.tessera.api;

import dev.tessera.api.inventory.MigDevice;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of a device in a ResourceSlice. Names are DNS labels derived only from hardware facts
 * that survive restarts and reboots (minor number, MIG profile and placement), so the controller
 * and the node plugin agree on them without talking to each other.
 */
public sealed interface DeviceName {

  /** The DNS label used in ResourceSlices and allocation results. */
  String value();

  /** A whole GPU: {@code gpu-<minor>}. */
  record Gpu(int minor) implements DeviceName {
    public Gpu {
      if (minor < 0) {
        throw new IllegalArgumentException("minor must be >= 0, got " + minor);
      }
    }

    @Override
    public String value() {
      return "gpu-" + minor;
    }
  }

  /**
   * A MIG device at a GPU-instance placement: {@code gpu-<parentMinor>-mig-<profile>-<start>}, the
   * profile with every character outside [a-z0-9] dropped ({@code 1g.10gb+me} → {@code 1g10gbme}).
   */
  record Mig(int parentMinor, String profile, int placementStart) implements DeviceName {
    public Mig {
      if (parentMinor < 0 || placementStart < 0) {
        throw new IllegalArgumentException("minor and placement start must be >= 0");
      }
      profile = profileLabel(profile);
      if (profile.isEmpty()) {
        throw new IllegalArgumentException("MIG profile must not be empty");
      }
    }

    /** The name of a MIG device that exists on the GPU with minor {@code parentMinor}. */
    public static Mig of(int parentMinor, MigDevice device) {
      return new Mig(parentMinor, device.profile(), device.placement().start());
    }

    @Override
    public String value() {
      return "gpu-" + parentMinor + "-mig-" + profile + "-" + placementStart;
    }
  }

  /** The profile as it appears in a device name. */
  static String profileLabel(String profile) {
    // A loop, not replaceAll: every MIG device name rendered goes through here, and replaceAll
    // compiles its pattern on each call (3 % of the controller's CPU at a fleet's start).
    var label = new StringBuilder(profile.length());
    for (char c : profile.toLowerCase(Locale.ROOT).toCharArray()) {
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
        label.append(c);
      }
    }
    return label.toString();
  }

  Pattern GPU = Pattern.compile("gpu-(\\d{1,9})");
  Pattern MIG = Pattern.compile("gpu-(\\d{1,9})-mig-([a-z0-9]+)-(\\d{1,9})");

  /**
   * Parses a device name; throws {@link IllegalArgumentException} for names Tessera never makes.
   */
  static DeviceName parse(String name) {
    Matcher gpu = GPU.matcher(name);
    if (gpu.matches()) {
      return new Gpu(Integer.parseInt(gpu.group(1)));
    }
    Matcher mig = MIG.matcher(name);
    if (mig.matches()) {
      return new Mig(Integer.parseInt(mig.group(1)), mig.group(2), Integer.parseInt(mig.group(3)));
    }
    throw new IllegalArgumentException("not a Tessera device name: \"" + name + "\"");
  }
}
