package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The chart's {@code javaOptions} change a flag the image's own {@code jvm.options} sets too, in
 * the pods the chart runs: each app's heap, as its JVM reports it in its metrics, follows the
 * operator's flag, not the image's ({@code -Xmx64m} for the plugin, {@code -XX:MaxRAMPercentage=70}
 * for the controller).
 */
class JavaOptionsE2E {
  private static final double MIB = 1024 * 1024;

  @Test
  void anOperatorsJvmFlagsWinOverTheImagesOwn() throws Exception {
    try (var tessera =
        TesseraOnNode.startWithHelmValues(
            Clusters.require(),
            "H100-SXM5-80GB",
            1,
            Offering.EXCLUSIVE,
            List.of(
                "plugin.javaOptions=-Xmx96m", "controller.javaOptions=-XX:MaxRAMPercentage=50"))) {
      var client = tessera.client();
      // SerialGC's pools (eden, one survivor, tenured) add up to the heap less a survivor space.
      double pluginHeap = awaitHeapMaxMib(tessera.deployment()::pluginMetrics);
      assertThat(pluginHeap).as("the plugin's heap with -Xmx96m, MiB").isBetween(86.0, 96.0);
      Quantity limit =
          client
              .apps()
              .deployments()
              .inNamespace(HelmChart.NAMESPACE)
              .withName("tessera-controller")
              .get()
              .getSpec()
              .getTemplate()
              .getSpec()
              .getContainers()
              .get(0)
              .getResources()
              .getLimits()
              .get("memory");
      double half = Quantity.getAmountInBytes(limit).doubleValue() / 2 / MIB;
      double controllerHeap = awaitHeapMaxMib(tessera.deployment()::controllerMetrics);
      assertThat(controllerHeap)
          .as("the controller's heap with -XX:MaxRAMPercentage=50 of a %s limit, MiB", limit)
          .isBetween(half * 0.9, half);
    }
  }

  /**
   * The sum of {@code jvm_memory_max_bytes} over the heap's pools, in MiB, once the app's metrics
   * report it.
   */
  private static double awaitHeapMaxMib(Callable<String> metrics) {
    return await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .until(() -> heapMaxMib(metrics.call()), h -> h > 0);
  }

  private static double heapMaxMib(String metrics) {
    return metrics
            .lines()
            .filter(l -> l.startsWith("jvm_memory_max_bytes{") && l.contains("area=\"heap\""))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
            .sum()
        / MIB;
  }
}
