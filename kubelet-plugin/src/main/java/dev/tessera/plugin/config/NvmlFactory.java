package dev.tessera.plugin.config;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.nvml.JnaNvml;
import dev.tessera.plugin.nvml.Nvml;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens NVML from the driver root once, for the life of the process, and discovers the GPUs. */
@Factory
public class NvmlFactory {
  private static final Logger LOG = LoggerFactory.getLogger(NvmlFactory.class);

  @Singleton
  @Bean(preDestroy = "close")
  Nvml nvml(PluginConfig config) {
    return JnaNvml.open(Path.of(config.driverRoot()));
  }

  /**
   * The inventory seen at start-up (again after a start-up rollback that changed MIG state); MIG
   * devices that prepare creates are tracked by prepare.
   */
  @Singleton
  RediscoverableInventory discoveredInventory(Nvml nvml, PluginConfig config) {
    return new RediscoverableInventory(
        () -> {
          NodeInventory inventory =
              GpuDiscovery.onNode(nvml, Path.of(config.driverRoot())).discover();
          LOG.atInfo()
              .addKeyValue("gpus", inventory.gpus().size())
              .addKeyValue("driverVersion", inventory.driverVersion())
              .addKeyValue(
                  "uptimeMs", java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime())
              .log("discovered GPUs");
          return inventory;
        });
  }

  @Singleton
  Supplier<NodeInventory> inventory(RediscoverableInventory inventory) {
    return inventory::current;
  }
}
