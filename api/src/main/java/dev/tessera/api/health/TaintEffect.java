package dev.tessera.api.health;

/** The effect of a device taint (resource.k8s.io/v1 {@code DeviceTaint.effect}). */
public enum TaintEffect {
  /** The scheduler does not allocate the device to claims that do not tolerate the taint. */
  NO_SCHEDULE("NoSchedule"),
  /**
   * Like {@link #NO_SCHEDULE}, and pods whose claims are allocated the device are evicted (their
   * claims are then deallocated and unprepared).
   */
  NO_EXECUTE("NoExecute"),
  /** Informational only (Kubernetes 1.35+): shown on the device, changes nothing. */
  NONE("None");

  private final String apiValue;

  TaintEffect(String apiValue) {
    this.apiValue = apiValue;
  }

  /** The effect the API server calls {@code value}, if it is one. */
  public static java.util.Optional<TaintEffect> fromApiValue(String value) {
    for (TaintEffect effect : values()) {
      if (effect.apiValue.equals(value)) {
        return java.util.Optional.of(effect);
      }
    }
    return java.util.Optional.empty();
  }

  /** The value the API server expects. */
  public String apiValue() {
    return apiValue;
  }
}
