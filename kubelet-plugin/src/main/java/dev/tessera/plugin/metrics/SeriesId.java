package dev.tessera.plugin.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** One series: its metric and its labels (in the order Prometheus shows them). */
public record SeriesId(Metric metric, Map<String, String> labels) {
  public SeriesId {
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
  }
}
