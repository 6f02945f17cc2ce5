package dev.tessera.controller.calls;

import io.fabric8.kubernetes.client.http.AsyncBody;
import java.util.ArrayList;
import java.util.List;

/**
 * The answers whose headers have come to one run of calls (see {@link CallAnswers}), cancelled when
 * the calls are given up: the stalled answer's connection (HTTP/1.1) or stream (HTTP/2) is then
 * closed, instead of staying open as long as the API server or the proxy in between keeps it.
 */
final class OpenAnswers {
  private final List<AsyncBody> answers = new ArrayList<>();
  private boolean cancelled;

  /**
   * An answer's headers came: kept until the calls end, or cancelled at once if they were given up
   * before (the headers came while the interrupt was made).
   */
  void opened(AsyncBody answer) {
    synchronized (this) {
      if (!cancelled) {
        answers.add(answer);
        // Read whole, it is let go: a body holds the bytes read (a slice's ~90 KiB).
        answer.done().whenComplete((read, failed) -> forget(answer));
        return;
      }
    }
    answer.cancel();
  }

  private synchronized void forget(AsyncBody answer) {
    answers.remove(answer);
  }

  /** Cancels every answer opened and every one to come; returns how many were still coming. */
  int cancel() {
    List<AsyncBody> open;
    synchronized (this) {
      cancelled = true;
      open = List.copyOf(answers);
      answers.clear();
    }
    // An answer already read whole is done: its cancel changes nothing.
    int stalled = 0;
    for (AsyncBody answer : open) {
      if (!answer.done().isDone()) {
        stalled++;
      }
      answer.cancel();
    }
    return stalled;
  }
}
