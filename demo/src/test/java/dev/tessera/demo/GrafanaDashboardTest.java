package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.metrics.Metric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code deploy/grafana/tessera.json} queries only series that exist: the plugin's per-device
 * series ({@link Metric}) and every other series it names documented in docs/node-plugin.md or
 * controller/README.md.
 */
class GrafanaDashboardTest {
  private static final Path REPO = HelmChart.REPO;
  private static final Pattern SERIES = Pattern.compile("tessera_[a-z_]+");

  @Test
  void everyQueryNamesASeriesThePluginOrTheControllerPublishes() throws Exception {
    JsonNode dashboard =
        JsonMapper.builder()
            .build()
            .readTree(Files.readString(REPO.resolve("deploy/grafana/tessera.json")));
    assertThat(dashboard.get("uid").asString()).isEqualTo("tessera");
    List<String> expressions = new ArrayList<>();
    for (JsonNode panel : dashboard.get("panels")) {
      if (panel.has("targets")) {
        panel.get("targets").forEach(t -> expressions.add(t.get("expr").asString()));
      }
    }
    Set<String> named = new TreeSet<>();
    expressions.forEach(e -> SERIES.matcher(e).results().forEach(m -> named.add(m.group())));

    Set<String> perDevice = new TreeSet<>();
    for (Metric metric : Metric.values()) {
      String name = metric.meterName().replace('.', '_');
      perDevice.add(metric.kind() == Metric.Kind.COUNTER ? name + "_total" : name);
    }
    String documented =
        Files.readString(REPO.resolve("docs/node-plugin.md"))
            + Files.readString(REPO.resolve("controller/README.md"));
    assertThat(named).containsAll(perDevice);
    assertThat(named)
        .allSatisfy(
            series ->
                assertThat(
                        perDevice.contains(series)
                            || documented.contains(series.replaceAll("_(bucket|count|sum)$", "")))
                    .as(series + " is published")
                    .isTrue());
  }
}
