package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.InterruptedIOException;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Objects;

/**
 * The one writer of Tessera's ResourceSlices. A slice is created whole (POST) or replaced whole
 * (PUT against the resourceVersion read), never patched: whatever a slice held before — fields
 * another writer or an older Tessera set included — a write leaves exactly the slice rendered, so
 * an offering switch cannot be stuck on a stale {@code devices} beside new {@code sharedCounters}
 * (see docs/decisions.md).
 *
 * <p>A write made against a stale cache meets a conflict (409: the slice changed since it was read,
 * or it exists already): it is retried at once against the slice as the API server has it now, or
 * skipped when that slice already says what was rendered, and counted apart from rejections. Any
 * other refusal stops the node's writes and goes back to the queue's backoff.
 *
 * <p>The controller gives it the client of {@link MetadataClient}: the answer to each write and the
 * read after a conflict carry the slice's metadata only, which is all this reads of them.
 */
public final class SliceWriter {
  /** Thrown when the API server refused a write; the node is retried after its backoff. */
  public static final class Rejected extends RuntimeException {
    Rejected(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final KubernetesClient client;
  private final MeterRegistry metrics;

  public SliceWriter(KubernetesClient client, MeterRegistry metrics) {
    this.client = client;
    this.metrics = metrics;
  }

  /** Makes the writes in order (the reconciler's order is the generation protocol's). */
  public void write(String node, List<SliceWrite> writes) {
    for (SliceWrite write : writes) {
      try {
        switch (write) {
          case SliceWrite.Create c -> put(c.slice(), false);
          case SliceWrite.Update u -> put(u.slice(), true);
          case SliceWrite.Delete d -> delete(d.name());
        }
      } catch (KubernetesClientException e) {
        if (givenUp(e)) {
          throw e; // no answer to count: the call timeout gave it up (CallDeadlines counts it)
        }
        String reason = reason(e);
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
          // A conflict again right after the fresh read: not a refusal of what was written.
          conflict(write.operation());
          throw new Rejected(
              "slice %s of node %s changed again while it was written; retrying later"
                  .formatted(write.name(), node),
              e);
        }
        metrics
            .counter(
                "tessera.controller.slice.writes.rejected",
                "operation",
                write.operation(),
                "reason",
                reason)
            .increment();
        throw new Rejected(
            "the API server refused to %s slice %s of node %s (%s): %s"
                .formatted(write.operation(), write.name(), node, reason, e.getMessage()),
            e);
      }
    }
  }

  private void put(ResourceSlice slice, boolean exists) {
    try {
      write(slice, exists);
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      conflict(exists ? "update" : "create");
      ResourceSlice current = api().withName(slice.getMetadata().getName()).get();
      if (current != null && sameContent(slice, current)) {
        return;
      }
      slice
          .getMetadata()
          .setResourceVersion(current == null ? null : current.getMetadata().getResourceVersion());
      // A second conflict means another writer is at it now: the queue's backoff decides when to
      // look again.
      write(slice, current != null);
    }
  }

  private void write(ResourceSlice slice, boolean exists) {
    if (exists) {
      api().resource(slice).update();
      count("update");
    } else {
      slice.getMetadata().setResourceVersion(null);
      api().resource(slice).create();
      count("create");
    }
  }

  private void delete(String name) {
    // Already gone (a stale cache, or the Node's garbage collection) is what was wanted.
    api().withName(name).delete();
    count("delete");
  }

  private NonNamespaceOperation<ResourceSlice, ResourceSliceList, Resource<ResourceSlice>> api() {
    return client.dynamicResourceAllocation().v1().resourcesSlices();
  }

  private void count(String operation) {
    metrics.counter("tessera.controller.slice.writes", "operation", operation).increment();
  }

  private void conflict(String operation) {
    metrics.counter("tessera.controller.slice.write.conflicts", "operation", operation).increment();
  }

  private static boolean sameContent(ResourceSlice desired, ResourceSlice current) {
    return current.getMetadata().getAnnotations() != null
        && Objects.equals(SliceContentHash.annotated(desired), SliceContentHash.annotated(current));
  }

  /**
   * Whether the write was given up while it waited for its answer, not refused. The call timeout
   * interrupts the writer's thread and then cancels the answer (see {@code CallAnswers}): the
   * interrupt may end fabric8's wait, or the cancel first — the JDK then fails the answer with an
   * I/O error of its own — but the thread stays interrupted until the calls return.
   */
  private static boolean givenUp(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof InterruptedIOException || cause instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }

  /** The API server's reason (Invalid, Forbidden, …), or the HTTP code when it gave none. */
  private static String reason(KubernetesClientException e) {
    if (e.getStatus() != null && e.getStatus().getReason() != null) {
      return e.getStatus().getReason();
    }
    return e.getCode() > 0 ? String.valueOf(e.getCode()) : "NoResponse";
  }
}
