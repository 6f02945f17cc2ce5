package dev.tessera.controller.events;

import dev.tessera.api.events.EventSink;
import dev.tessera.api.events.EventWrite;
import dev.tessera.controller.calls.CallDeadlines;

/**
 * Events written within the call timeout: the recorder writes them one after another on its one
 * thread, so a write whose answer stalled after its headers (fabric8's JDK client has no timeout
 * there) held every Event after it for good, each then dropped as the queue filled. Given up, the
 * write fails as a refused one does and the next is written.
 */
public final class BoundedEventSink implements EventSink {
  /** The call's name in the given-up calls' metric and log. */
  static final String CALL = "event-writes";

  private final EventSink sink;
  private final CallDeadlines deadlines;

  public BoundedEventSink(EventSink sink, CallDeadlines deadlines) {
    this.sink = sink;
    this.deadlines = deadlines;
  }

  /** The controller's Events are about GpuNodes, each named after its node. */
  @Override
  public void write(EventWrite write) {
    deadlines.run(CALL, write.event().object().name(), () -> sink.write(write));
  }

  @Override
  public void failed(EventWrite write, RuntimeException cause) {
    sink.failed(write, cause);
  }
}
