package dev.tessera.controller;

import io.micronaut.runtime.Micronaut;

/** The controller: publishes every GPU node's ResourceSlices from its GpuNode. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    var context = Micronaut.build(args).mainClass(Main.class).banner(false).start();
    // No HTTP server keeps the JVM up; the shutdown hook closes the context on SIGTERM.
    while (context.isRunning()) {
      Thread.sleep(1_000);
    }
  }
}
