package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.startup.JarServices;
import dev.tessera.api.startup.MicronautServiceIndex;
import io.micronaut.core.io.service.MicronautMetaServiceLoaderUtils;
import io.micronaut.core.io.service.SoftServiceLoader;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work the plugin's jar leaves out of its start. Micronaut gets the jar's services from an index
 * (decision 41), which holds what Micronaut's own scan of the jar finds, service by service, so the
 * jar is never opened as a zip file system; and fabric8 never loads its 351 model kinds to decode a
 * kubeconfig or a claim (decision 42).
 */
class JarStartIT {
  @TempDir Path dir;

  @Test
  void theIndexHoldsWhatMicronautsOwnScanOfTheJarFinds() throws Exception {
    assertThat(KillablePlugin.JAR).as("the shaded plugin jar (built at package)").exists();
    JarServices index = MicronautServiceIndex.read(KillablePlugin.JAR.toString()).orElseThrow();
    try (var jar =
        new URLClassLoader(
            new URL[] {KillablePlugin.JAR.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      assertThat(MicronautMetaServiceLoaderUtils.findAllMicronautMetaServices(jar).keySet())
          .as("the services under META-INF/micronaut")
          .isNotEmpty()
          .isSubsetOf(index.byService().keySet());
      assertThat(index.byService())
          .containsKey("io.micronaut.inject.BeanDefinitionReference")
          .allSatisfy(
              (service, providers) ->
                  assertThat(Set.copyOf(providers))
                      .as(service)
                      .isEqualTo(Set.copyOf(scanned(service, jar))));
    }
  }

  @Test
  void theRealJarStartsWithoutScanningItselfOrFabric8sModelKinds() throws Exception {
    try (var api = new MockApiServer()) {
      try (var plugin = startLoggingClasses(api, "")) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.readString(plugin.log()).contains("serving the kubelet"));
        // The client's warm-up decodes a claim, then asks for this one: both kinds of decode done.
        assertThat(api.awaitRequest("tessera-warm-up-none", Duration.ofSeconds(60))).isTrue();
        String loaded = Files.readString(classes());
        assertThat(loaded)
            .as("the index was installed")
            .contains("dev.tessera.api.startup.IndexedServiceLoader ");
        assertThat(loaded)
            .as("no zip file system opened over the jar")
            .doesNotContain("jdk.nio.zipfs.ZipFileSystem ");
        assertThat(loaded)
            .as("the kubeconfig and a claim decoded without fabric8's kinds of other API groups")
            .contains("io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim ")
            .doesNotContain("io.fabric8.kubernetes.api.model.gatewayapi.")
            .doesNotContain("io.fabric8.kubernetes.api.model.storage.");
      }
    }
  }

  @Test
  void withItsShippedFlagsNettyLinksNoMallocAndTheJvmWarnsOfNothing() throws Exception {
    try (var api = new MockApiServer()) {
      try (var plugin = startLoggingClasses(api, PluginProcess.shippedJvmOptions());
          var kubelet = new KubeletClient(plugin.registrationSocket(), plugin.draSocket())) {
        plugin.awaitRegistrationSocket();
        // Calls through the registration socket: netty has allocated its buffers and used them.
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> kubelet.getInfo().getName().equals("gpu.tessera.dev"));
        kubelet.notifyRegistration(true, "");
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.readString(plugin.log()).contains("registered with the kubelet"));
        assertThat(Files.readString(classes()))
            // CleanerJava9 is asked first, so loaded either way; the FFM one only after a no.
            .as("netty's direct buffers through Unsafe (decision 44), not malloc linked by FFM")
            .contains("io.netty.util.internal.CleanerJava9 ")
            .doesNotContain("io.netty.util.internal.CleanerJava24Linker ")
            .as("netty's buffer events not registered with the Flight Recorder (decision 54)")
            .doesNotContain("jdk.jfr.internal.MetadataRepository ");
        assertThat(Files.readAllLines(plugin.log()))
            .as("the JVM's own warnings (sun.misc.Unsafe, restricted methods) in the plugin's log")
            .noneMatch(line -> line.startsWith("WARNING:"));
      }
    }
  }

  /**
   * The real jar on a simulated one-GPU node served by {@code api}, with {@code javaOpts}, its
   * class loading logged to {@link #classes()}.
   */
  private PluginProcess startLoggingClasses(MockApiServer api, String javaOpts)
      throws IOException, InterruptedException {
    Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 1);
    return PluginProcess.start(
        KillablePlugin.JAR,
        dir.resolve("node"),
        javaOpts + " -Xlog:class+load=info:file=" + classes(),
        PluginProcess.nodeEnv(dir, root, api.writeKubeconfig(dir)));
  }

  private Path classes() {
    return dir.resolve("classes.log");
  }

  /** What Micronaut's own service loader finds in the jar for {@code service}, by class name. */
  private static ArrayList<String> scanned(String service, ClassLoader jar) {
    var names = new ArrayList<String>();
    SoftServiceLoader.newCollector(service, name -> true, jar, name -> name).collect(names);
    return names;
  }
}
