package dev.tessera.plugin;

import dev.tessera.api.lifecycle.ClosedAtShutdown;
import dev.tessera.api.startup.AppContext;
import io.micronaut.context.ApplicationContext;

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
    // Started without Micronaut scanning the jar (decision 41).
    ApplicationContext context = AppContext.start(Main.class, args);
    // Micronaut closes the context on SIGTERM and keeps the JVM up only for an embedded server,
    // and the plugin has none (its HTTP is the JDK's): the hook closes it (sockets removed,
    // in-flight work finished) and main lives until then.
    ClosedAtShutdown.await(context::close);
  }
}
