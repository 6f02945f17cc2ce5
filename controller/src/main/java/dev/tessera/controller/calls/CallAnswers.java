package dev.tessera.controller.calls;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Ties each request made by calls that {@link CallDeadlines} follows to those calls, so that giving
 * them up also cancels their answer. fabric8's blocking calls wait on a future of their own,
 * derived from the client's: interrupting the caller ends the wait, not the request, whose answer
 * then stalls on, holding its connection or HTTP/2 stream until the other end closes it — one more
 * for every call given up. An interceptor is where fabric8 shows an answer's body once its headers
 * come, and its cancel ends the exchange.
 *
 * <p>A request is tied on the thread that makes it, when fabric8 takes its answer's consumer (on
 * the caller's thread for a first try). fabric8 retries a failed try on its own timer's thread with
 * the same consumer: the calls are found again through it.
 */
public final class CallAnswers implements Interceptor {
  /** The name under which the controller's clients carry it. */
  public static final String NAME = "tessera-call-answers";

  private final CallDeadlines deadlines;

  /**
   * The calls each request's own consumer was first tied to, for fabric8's retries: both held
   * weakly, as the calls' answers hold the consumer (the calls themselves are held by {@link
   * CallDeadlines} while they are under way).
   */
  private final Map<AsyncBody.Consumer<List<ByteBuffer>>, WeakReference<OpenAnswers>> tied =
      Collections.synchronizedMap(new WeakHashMap<>());

  public CallAnswers(CallDeadlines deadlines) {
    this.deadlines = deadlines;
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(
      AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
    OpenAnswers answers = deadlines.answersOfThisThread();
    if (answers != null) {
      tied.put(consumer, new WeakReference<>(answers));
    } else {
      WeakReference<OpenAnswers> first = tied.get(consumer);
      answers = first == null ? null : first.get();
    }
    return answers == null ? consumer : new Tied(consumer, answers);
  }

  @Override
  public void after(
      HttpRequest request,
      HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    if (consumer == null) {
      return; // a WebSocket's upgrade: no body to tie
    }
    // Another interceptor may have wrapped ours: fabric8's wrappers unwrap down the chain.
    Tied ours = consumer.unwrap(Tied.class);
    if (ours != null && response.body() instanceof AsyncBody answer) {
      ours.answers().opened(answer);
    }
  }

  /** A request's consumer, and the calls that made the request. */
  private record Tied(AsyncBody.Consumer<List<ByteBuffer>> consumer, OpenAnswers answers)
      implements AsyncBody.Consumer<List<ByteBuffer>> {
    @Override
    public void consume(List<ByteBuffer> value, AsyncBody body) throws Exception {
      consumer.consume(value, body);
    }

    @Override
    public <U> U unwrap(Class<U> target) {
      return target == Tied.class ? target.cast(this) : consumer.unwrap(target);
    }
  }
}
