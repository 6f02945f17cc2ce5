package dev.tessera.api.config;

/** One reason a config is invalid, with the path of the field it is about. */
public record FieldError(String field, String message) {
  @Override
  public String toString() {
    return field + ": " + message;
  }
}
