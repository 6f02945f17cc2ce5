package dev.tessera.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Starts a process whose output (stdout and stderr together) goes to this JVM's {@code System.out}
 * rather than straight to its file descriptor: the test run's reporter takes it with the rest of
 * what the test printed (the demo shows a class's set-up output only when a test of it fails), and
 * surefire's channel is not written past.
 */
final class ProcessOutput {
  private ProcessOutput() {}

  static Process start(ProcessBuilder builder) throws IOException {
    Process process = builder.redirectErrorStream(true).start();
    process.getOutputStream().close(); // nothing to read: as from /dev/null
    InputStream out = process.getInputStream();
    Thread.ofVirtual()
        .name("output of " + builder.command().get(0))
        .start(
            () -> {
              try (out) {
                out.transferTo(System.out);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    return process;
  }
}
