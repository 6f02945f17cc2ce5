package dev.tessera.controller;

import dev.tessera.api.lifecycle.ClosedAtShutdown;
import dev.tessera.api.startup.AppContext;
import io.micronaut.context.ApplicationContext;

/** The controller: publishes every GPU node's ResourceSlices from its GpuNode. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    // Started without Micronaut scanning the jar (decision 41).
    ApplicationContext context = AppContext.start(Main.class, args);
    // Micronaut adds its shutdown hook only for an embedded server, and the controller has none
    // (its HTTP is the JDK's): without this hook SIGTERM ended the JVM with the context open, so
    // the leader kept its Lease until it expired and the next replica waited that out. The hook
    // closes the context (the Lease released, the webhook stopped); main lives until then.
    ClosedAtShutdown.await(context::close);
  }
}
