package dev.tessera.api.health;

/** The effect of a device taint (resource.k8s.io/v1 {@code DeviceTaint.effect}). */
public enum TaintEffect {
  /** The scheduler does not allocate the device to claims that do not tolerate the taint. */
  NO_SCHEDULE("NoSchedule"),
  /** Informational only (Kubernetes 1.35+): shown on the device, changes nothing. */
  NONE("None");

  private final String apiValue;

  TaintEffect(String apiValue) {
    this.apiValue = apiValue;
  }

  /** The value the API server expects. */
  public String apiValue() {
    return apiValue;
  }
}
