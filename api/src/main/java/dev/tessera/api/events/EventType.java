package dev.tessera.api.events;

/** An Event's {@code type}: what kubectl shows in its TYPE column. */
public enum EventType {
  NORMAL("Normal"),
  WARNING("Warning");

  private final String apiValue;

  EventType(String apiValue) {
    this.apiValue = apiValue;
  }

  public String apiValue() {
    return apiValue;
  }
}
