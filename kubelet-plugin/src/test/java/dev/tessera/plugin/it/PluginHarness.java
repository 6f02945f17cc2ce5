package dev.tessera.plugin.it;

import dev.tessera.plugin.app.FatalErrors;
import dev.tessera.plugin.config.PluginConfig;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;

/**
 * One node plugin running in this JVM on a simulated GPU node: its own driver root, kubelet dirs,
 * CDI dir and boot ID under a temp dir, talking to a mock API server, dialled by a fake kubelet.
 */
public final class PluginHarness implements AutoCloseable {
  public static final String DRIVER = "gpu.tessera.dev";
  public static final String NODE = "node-a";

  public final Path dir;
  public final Path driverRoot;
  public final MockApiServer api;
  public final List<String> fatalErrors = new CopyOnWriteArrayList<>();
  private final Map<String, Object> extraProperties = new LinkedHashMap<>();
  private ApplicationContext context;
  private KubeletClient kubelet;
  private String instance;

  public PluginHarness(Path dir, Path driverRoot, MockApiServer api) throws IOException {
    this.dir = dir;
    this.driverRoot = driverRoot;
    this.api = api;
    Files.createDirectories(dir);
    Files.writeString(bootIdFile(), "boot-1\n");
  }

  public Path bootIdFile() {
    return dir.resolve("boot_id");
  }

  public Path registrationSocket() {
    String tag = instance == null ? "" : "-" + PluginConfig.instanceTag(instance);
    return dir.resolve("plugins_registry/" + DRIVER + tag + "-reg.sock");
  }

  public Path draSocket() {
    String name =
        instance == null ? "dra.sock" : "dra-" + PluginConfig.instanceTag(instance) + ".sock";
    return dir.resolve("plugins/" + DRIVER + "/" + name);
  }

  /**
   * Names this plugin's sockets apart ({@code tessera.instance}), as a second instance on the same
   * node dirs during a rolling upgrade has them.
   */
  public PluginHarness asInstance(String instance) {
    this.instance = instance;
    return withProperty("tessera.instance", instance);
  }

  public Path cdiDir() {
    return dir.resolve("cdi");
  }

  public Path checkpointFile() {
    return dir.resolve("plugins/" + DRIVER + "/checkpoint.json");
  }

  public Path specFile(String claimUid) {
    return cdiDir().resolve("k8s." + DRIVER + "-claim_" + claimUid + ".json");
  }

  /** Sets a plugin property (e.g. {@code tessera.health-recovery}) for the next start. */
  public PluginHarness withProperty(String key, String value) {
    extraProperties.put(key, value);
    return this;
  }

  public PluginHarness start() throws IOException {
    FatalErrors recordFatal = fatalErrors::add;
    var properties =
        new HashMap<String, Object>(
            Map.of(
                "tessera.node-name", NODE,
                "tessera.registry-dir", dir.resolve("plugins_registry").toString(),
                "tessera.plugins-dir", dir.resolve("plugins").toString(),
                "tessera.cdi-dir", cdiDir().toString(),
                "tessera.driver-root", driverRoot.toString(),
                "tessera.boot-id-file", bootIdFile().toString(),
                "tessera.kubeconfig", api.writeKubeconfig(dir).toString(),
                "tessera.exit-on-fatal", "false",
                "tessera.metrics-port", "-1"));
    properties.putAll(extraProperties);
    context = ApplicationContext.builder().properties(properties).singletons(recordFatal).start();
    // As the kubelet's plugin watcher does: the plugin offers registration once its client is warm.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.exists(registrationSocket()));
    kubelet = new KubeletClient(registrationSocket(), draSocket());
    return this;
  }

  public KubeletClient kubelet() {
    return kubelet;
  }

  public ApplicationContext context() {
    return context;
  }

  /** Stops the plugin as a pod termination would (sockets removed, state kept on disk). */
  public void stop() throws InterruptedException {
    if (kubelet != null) {
      kubelet.close();
      kubelet = null;
    }
    if (context != null) {
      context.close();
      context = null;
    }
  }

  /** Creates the claim; the API server gives it its UID. */
  public ResourceClaim create(ResourceClaim claim) {
    return api.client().resource(claim).create();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
