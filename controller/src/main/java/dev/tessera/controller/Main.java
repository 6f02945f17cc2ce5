package dev.tessera.controller;

import dev.tessera.api.lifecycle.ClosedAtShutdown;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;

/** The controller: publishes every GPU node's ResourceSlices from its GpuNode. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    ApplicationContext context = Micronaut.build(args).mainClass(Main.class).banner(false).start();
    // Micronaut adds its shutdown hook only for an embedded server, and the controller has none
    // (its HTTP is the JDK's): without this hook SIGTERM ended the JVM with the context open, so
    // the leader kept its Lease until it expired and the next replica waited that out. The hook
    // closes the context (the Lease released, the webhook stopped); main lives until then.
    ClosedAtShutdown.await(context::close);
  }
}
