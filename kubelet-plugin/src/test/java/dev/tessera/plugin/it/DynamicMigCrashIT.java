package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * SIGKILL of the plugin process in the middle of a dynamic MIG prepare: after the GPU instance is
 * made and before its compute instance is (the simulator's per-call delay holds the plugin there).
 * The restarted plugin destroys the half-made instance before it serves the kubelet, and the
 * kubelet's retry prepares the claim from scratch.
 */
class DynamicMigCrashIT {
  private static final Path JAR = Path.of("target/tessera-kubelet-plugin.jar").toAbsolutePath();

  @TempDir Path dir;
  private final JsonMapper json = JsonMapper.builder().build();

  @Test
  void aPluginKilledBetweenGpuAndComputeInstanceLeavesNothingAfterItsRestart() throws Exception {
    assertThat(JAR).as("the shaded plugin jar (built at package)").exists();
    Path root =
        SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", 1, "--mig-enabled", "0");
    Path config = root.resolve("etc/mock-nvml/config");
    String plainConfig = Files.readString(config);
    Files.writeString(config, plainConfig + "delay_ms.nvmlGpuInstanceCreateComputeInstance=5000\n");
    // H100 1g.10gb at slice 3 is GPU instance 10.
    Path giCapability = root.resolve("proc/driver/nvidia/capabilities/gpu0/mig/gi10/access");
    String javaOpts =
        Files.readAllLines(Path.of("jvm.options")).stream()
            .filter(l -> !l.startsWith("#"))
            .collect(Collectors.joining(" "));

    try (MockApiServer api = new MockApiServer()) {
      ResourceClaim claim =
          api.client()
              .resource(
                  claim("u", "crash", List.of(result("mig", "gpu-0-mig-1g10gb-3")), List.of()))
              .create();
      String uid = claim.getMetadata().getUid();
      Path kubeconfig = api.writeKubeconfig(dir);

      PluginProcess first =
          PluginProcess.start(
              JAR, dir.resolve("node"), dir.resolve("cdi"), root, kubeconfig, javaOpts, "INFO");
      try (first;
          KubeletClient kubelet =
              new KubeletClient(first.registrationSocket(), first.draSocket())) {
        first.awaitRegistrationSocket();
        kubelet.notifyRegistration(true, "");
        var prepare = CompletableFuture.supplyAsync(() -> kubelet.prepare(claim));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(giCapability));
        ProcessHandle.of(first.pid()).orElseThrow().destroyForcibly();
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(first.pid()).isEmpty());
        assertThat(prepare).failsWithin(Duration.ofSeconds(10));
      }
      // Half made: the intent is checkpointed, the GPU instance exists, no compute instance.
      JsonNode entry =
          json.readTree(Files.readString(first.checkpointFile())).get("claims").get(uid);
      assertThat(entry.get("state").asString()).isEqualTo("PrepareStarted");
      assertThat(entry.get("createdMig").get(0).get("device").asString())
          .isEqualTo("gpu-0-mig-1g10gb-3");
      assertThat(giCapability).exists();
      assertThat(giCapability.resolveSibling("ci0")).doesNotExist();

      Files.writeString(config, plainConfig);
      // A killed plugin leaves its sockets behind; the wait below must see the new one.
      Files.delete(first.registrationSocket());
      PluginProcess second =
          PluginProcess.start(
              JAR, dir.resolve("node"), dir.resolve("cdi"), root, kubeconfig, javaOpts, "INFO");
      try (second;
          KubeletClient kubelet =
              new KubeletClient(second.registrationSocket(), second.draSocket())) {
        second.awaitRegistrationSocket();
        // Cleaned at start-up, before the kubelet could call.
        assertThat(giCapability).doesNotExist();
        kubelet.notifyRegistration(true, "");

        assertThat(kubelet.prepare(claim).get(uid).getError()).isEmpty();
        assertThat(giCapability).exists();
        assertThat(giCapability.resolveSibling("ci0/access")).exists();
        assertThat(kubelet.unprepare(claim)).isEmpty();
        assertThat(giCapability).doesNotExist();
        assertThat(json.readTree(Files.readString(second.checkpointFile())).get("claims").size())
            .isZero();
      }
    }
  }
}
