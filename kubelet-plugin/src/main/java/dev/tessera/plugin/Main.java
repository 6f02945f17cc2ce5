package dev.tessera.plugin;

import dev.tessera.api.lifecycle.ClosedAtShutdown;
import dev.tessera.api.startup.AppDefaults;
import dev.tessera.api.startup.MicronautServiceIndex;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;

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
    // Micronaut closes the context on SIGTERM and keeps the JVM up only for an embedded server,
    // and the plugin has none (its HTTP is the JDK's): the hook closes it (sockets removed,
    // in-flight work finished) and main lives until then.
    ClosedAtShutdown.await(context::close);
  }
}
