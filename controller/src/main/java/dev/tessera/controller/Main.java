package dev.tessera.controller;

import dev.tessera.api.lifecycle.ClosedAtShutdown;
import dev.tessera.api.startup.AppDefaults;
import dev.tessera.api.startup.MicronautServiceIndex;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;

/** The controller: publishes every GPU node's ResourceSlices from its GpuNode. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    // Neither scans the jar through a zip file system (decision 41): before anything asks
    // Micronaut for a service, the context gets the jar's services from an index, and the app's
    // defaults come from tessera-defaults.properties instead of an application.properties.
    ClassLoader jar = Main.class.getClassLoader();
    MicronautServiceIndex.install(System.getProperty("java.class.path"), jar);
    ApplicationContext context =
        Micronaut.build(args)
            .mainClass(Main.class)
            .banner(false)
            .propertySources(AppDefaults.of("tessera-defaults.properties", jar))
            .start();
    // Micronaut adds its shutdown hook only for an embedded server, and the controller has none
    // (its HTTP is the JDK's): without this hook SIGTERM ended the JVM with the context open, so
    // the leader kept its Lease until it expired and the next replica waited that out. The hook
    // closes the context (the Lease released, the webhook stopped); main lives until then.
    ClosedAtShutdown.await(context::close);
  }
}
