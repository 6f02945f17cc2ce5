package dev.tessera.api.lifecycle;

import java.util.concurrent.CountDownLatch;

/**
 * How both apps live until SIGTERM: Micronaut closes its context at shutdown, and keeps the JVM up,
 * only for an embedded server, and neither app runs one (their HTTP is the JDK's). Without this the
 * JVM ended with the context open: no {@code @PreDestroy} ran (sockets left, the leader's Lease
 * left to expire).
 */
public final class ClosedAtShutdown {
  private ClosedAtShutdown() {}

  /**
   * Runs {@code close} in a shutdown hook and blocks the caller (the app's main thread, which keeps
   * the JVM up) until it has run.
   */
  public static void await(Runnable close) throws InterruptedException {
    var closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            Thread.ofPlatform()
                .name("shutdown")
                .unstarted(
                    () -> {
                      try {
                        close.run();
                      } finally {
                        closed.countDown();
                      }
                    }));
    closed.await();
  }
}
