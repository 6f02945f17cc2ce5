package dev.tessera.plugin.claim;

/** A claim that cannot be prepared or unprepared; the message goes back to the kubelet as is. */
public final class PrepareException extends Exception {
  private static final long serialVersionUID = 1L;

  public PrepareException(String message) {
    super(message);
  }

  public PrepareException(String message, Throwable cause) {
    super(message, cause);
  }
}
