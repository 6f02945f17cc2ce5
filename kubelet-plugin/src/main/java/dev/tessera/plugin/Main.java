package dev.tessera.plugin;

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
    Micronaut.build(args).mainClass(Main.class).banner(false).start();
  }
}
