package dev.tessera.api.config;

import java.util.List;
import java.util.stream.Collectors;

/** An opaque config that Tessera refuses, with every field that is wrong. */
public final class InvalidConfigException extends Exception {
  private static final long serialVersionUID = 1L;
  private final List<FieldError> errors;

  public InvalidConfigException(List<FieldError> errors) {
    super(errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
    this.errors = List.copyOf(errors);
  }

  public List<FieldError> errors() {
    return errors;
  }
}
