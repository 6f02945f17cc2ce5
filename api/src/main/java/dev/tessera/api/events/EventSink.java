package dev.tessera.api.events;

/**
 * Where Events go: the API server, through each app's thin adapter. Blocking; a failure throws, and
 * the recorder logs nothing itself — the adapter knows which object (a claim's UID) to name.
 */
public interface EventSink {
  void write(EventWrite write);

  /** A write that failed and was dropped (the adapter logs it with the object's identity). */
  void failed(EventWrite write, RuntimeException cause);
}
