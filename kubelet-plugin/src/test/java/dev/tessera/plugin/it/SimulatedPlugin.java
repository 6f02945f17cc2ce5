package dev.tessera.plugin.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A simulated node with the real plugin on it, for each test: the simulator's driver root laid out
 * for a GPU model, a mock API server, and the plugin started on them ({@link PluginHarness});
 * stopped and removed after the test. Register it on a field:
 *
 * <pre>{@code
 * @RegisterExtension
 * final SimulatedPlugin node = new SimulatedPlugin("H100-SXM5-80GB", 2, "--mig-enabled", "1");
 * }</pre>
 *
 * Its {@code beforeEach} runs before the test's own {@code @BeforeEach} methods, its {@code
 * afterEach} after their {@code @AfterEach}.
 */
public final class SimulatedPlugin implements BeforeEachCallback, AfterEachCallback {
  private final String profile;
  private final int gpus;
  private final List<String> simulatorArgs;
  private final Map<String, String> properties = new LinkedHashMap<>();
  private Path dir;
  private Path root;
  private MockApiServer api;
  private PluginHarness plugin;

  /**
   * @param simulatorArgs further arguments of the simulator's layout (MIG mode, MIG devices)
   */
  public SimulatedPlugin(String profile, int gpus, String... simulatorArgs) {
    this.profile = profile;
    this.gpus = gpus;
    this.simulatorArgs = List.of(simulatorArgs);
  }

  /** A plugin setting ({@code tessera.*}) the plugin starts with. */
  public SimulatedPlugin withProperty(String key, String value) {
    properties.put(key, value);
    return this;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("tessera-it-");
    root =
        SimulatedNode.layOut(
            dir.resolve("driver-root"), profile, gpus, simulatorArgs.toArray(String[]::new));
    api = new MockApiServer();
    var harness = new PluginHarness(dir.resolve("node"), root, api);
    properties.forEach(harness::withProperty);
    plugin = harness.start();
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      if (plugin != null) {
        plugin.close();
      }
    } finally {
      if (api != null) {
        api.close();
      }
      TestFiles.deleteTree(dir);
    }
  }

  /** The simulated driver root. */
  public Path root() {
    return root;
  }

  public MockApiServer api() {
    return api;
  }

  public PluginHarness plugin() {
    return plugin;
  }
}
