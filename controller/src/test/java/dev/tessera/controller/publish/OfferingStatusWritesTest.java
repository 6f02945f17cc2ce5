package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The GpuNodes' offering is written behind the slices: not while nodes wait for theirs, unless it
 * has waited its patience out; the latest wish for a node is the one written, and a failed write
 * does not stop the others.
 */
class OfferingStatusWritesTest {
  private final TestClock clock = new TestClock(Instant.parse("2026-12-02T10:00:00Z"));
  private final AtomicInteger slicesWaiting = new AtomicInteger();
  private final List<String> written = new CopyOnWriteArrayList<>();
  private final OfferingStatusWrites writes =
      new OfferingStatusWrites(
          (node, offering) -> {
            if (node.equals("broken")) {
              throw new IllegalStateException("the API server refused");
            }
            written.add(node + "=" + offering);
          },
          slicesWaiting::get,
          clock,
          Duration.ofSeconds(30));

  @AfterEach
  void close() {
    writes.close();
  }

  @Test
  void aWishIsWrittenOnceNoSlicesWait() throws Exception {
    slicesWaiting.set(3);
    writes.start();
    writes.wish("node-a", "shared");
    TimeUnit.MILLISECONDS.sleep(300);
    assertThat(written).as("written while slices wait").isEmpty();

    slicesWaiting.set(0);
    awaitWritten(1);
    assertThat(written).containsExactly("node-a=shared");
    assertThat(writes.pending()).isZero();
  }

  @Test
  void aWishThatWaitedItsPatienceOutIsWrittenAnyway() throws Exception {
    slicesWaiting.set(3);
    writes.start();
    writes.wish("node-a", "shared");
    TimeUnit.MILLISECONDS.sleep(300);
    assertThat(written).isEmpty();

    clock.advance(Duration.ofSeconds(31));
    awaitWritten(1);
    assertThat(written).containsExactly("node-a=shared");
  }

  @Test
  void theLatestWishIsWrittenAndAFailureStopsNothing() throws Exception {
    slicesWaiting.set(1);
    writes.start();
    writes.wish("broken", "exclusive");
    writes.wish("node-a", "shared");
    writes.wish("node-a", "mig-dynamic");
    assertThat(writes.pending()).isEqualTo(2);

    slicesWaiting.set(0);
    awaitWritten(1);
    TimeUnit.MILLISECONDS.sleep(100);
    assertThat(written).containsExactly("node-a=mig-dynamic");
  }

  private void awaitWritten(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (written.size() < count && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
    assertThat(written).hasSizeGreaterThanOrEqualTo(count);
  }
}
