package dev.tessera.demo;

import static org.junit.jupiter.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;

/**
 * Tessera's Helm chart ({@code deploy/helm/tessera}) through {@code hack/helm}, which builds Helm
 * from the Go module proxy on first use. Where Helm can be neither found nor built (no Go), tests
 * are skipped with the reason, except on CI ({@code CI=true}), where that is a failure.
 */
final class HelmChart {
  static final String RELEASE = "tessera";
  static final String NAMESPACE = "tessera-system";
  static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", "..")).toAbsolutePath().normalize();
  static final Path CHART = REPO.resolve("deploy/helm/tessera");

  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  private HelmChart() {}

  /** The result of one helm command. */
  record Result(int exitCode, String output, String errors) {
    Result orFail(String what) {
      if (exitCode != 0) {
        fail(what + " failed (exit " + exitCode + "):\n" + output + errors);
      }
      return this;
    }
  }

  /** Runs {@code hack/helm ARGS}; skips the test where Helm cannot be had here. */
  static Result helm(List<String> args) throws IOException, InterruptedException {
    requireHelm();
    return run(args);
  }

  /** {@code helm template} of the chart as release tessera in tessera-system, with --set values. */
  static List<HasMetadata> render(String... setValues) throws IOException, InterruptedException {
    var args = new ArrayList<>(List.of("template", RELEASE, CHART.toString(), "-n", NAMESPACE));
    for (String value : setValues) {
      args.add("--set");
      args.add(value);
    }
    return parse(helm(args).orFail("helm template").output());
  }

  /** Makes the release namespace (or leaves the one there). */
  static void createNamespace(KubernetesClient client) {
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
  }

  /**
   * Deletes the release namespace and waits until it is gone, so the next test can make it anew.
   */
  static void deleteNamespace(KubernetesClient client) {
    client.namespaces().withName(NAMESPACE).delete();
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> client.namespaces().withName(NAMESPACE).get() == null);
  }

  /** Every object of a multi-document YAML stream. */
  static List<HasMetadata> parse(String yaml) {
    var objects = new ArrayList<HasMetadata>();
    for (String doc : yaml.split("(?m)^---\\s*$")) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) {
        continue;
      }
      objects.add(YAML.unmarshal(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8))));
    }
    return objects;
  }

  /** A value of a generic object, as a plain map or list tree (for comparing manifests). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> tree(Object object) {
    return YAML.convertValue(object, Map.class);
  }

  private static volatile Boolean available;

  private static void requireHelm() throws IOException, InterruptedException {
    if (available == null) {
      // Builds Helm once (about a minute on 2 cores), then answers from the cache.
      Result version = run(List.of("version", "--short"));
      available = version.exitCode() == 0;
      if (!available) {
        String reason = "hack/helm cannot run here: " + version.errors().strip();
        if ("true".equals(System.getenv("CI"))) {
          fail(reason);
        }
        System.err.println(reason);
      }
    }
    Assumptions.assumeTrue(available, "Helm cannot be built here (no Go?): chart tests skipped");
  }

  private static Result run(List<String> args) throws IOException, InterruptedException {
    var command = new ArrayList<String>();
    command.add(REPO.resolve("hack/helm").toString());
    command.addAll(args);
    Path out = Files.createTempFile("helm", ".out");
    Path err = Files.createTempFile("helm", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(10, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        fail("hack/helm " + args + " did not finish in 10 minutes");
      }
      return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.delete(out);
      Files.delete(err);
    }
  }
}
