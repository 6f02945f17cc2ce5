package dev.tessera.plugin;

import dev.tessera.api.lifecycle.ClosedAtShutdown;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;
import org.slf4j.LoggerFactory;

/**
 * The node plugin. {@code inventory [--driver-root DIR]} prints what NVML sees and exits, without a
 * cluster; with no arguments it runs as the kubelet plugin.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("inventory")) {
      String driverRoot = "/";
      for (int i = 1; i < args.length - 1; i++) {
        if (args[i].equals("--driver-root")) {
          driverRoot = args[i + 1];
        }
      }
      System.exit(InventoryMain.run(driverRoot, System.out, System.err));
    }
    // Logging first, on this thread: a logger asked for on two threads while SLF4J initializes is
    // a stand-in that says every level is enabled, and Micronaut then traces each bean it resolves.
    LoggerFactory.getILoggerFactory();
    StartupPreload.start();
    ApplicationContext context = Micronaut.build(args).mainClass(Main.class).banner(false).start();
    // Micronaut closes the context on SIGTERM and keeps the JVM up only for an embedded server,
    // and the plugin has none (its HTTP is the JDK's): the hook closes it (sockets removed,
    // in-flight work finished) and main lives until then.
    ClosedAtShutdown.await(context::close);
  }
}
