package dev.tessera.plugin.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The registry's side of the series: registers a meter for each new series, sets every series'
 * value, and removes the meters of series a sample no longer has (a released claim's, a value NVML
 * stopped giving), so the number of series stays the number of devices times their holders. Used by
 * the sampler's thread only.
 */
public final class MeterBook {
  private final MeterRegistry registry;
  private final Map<SeriesId, Registered> meters = new HashMap<>();

  /** A series' latest value; the meter reads it at scrape time. */
  private static final class Cell {
    private volatile double value;

    double value() {
      return value;
    }
  }

  private record Registered(Meter meter, Cell cell) {}

  public MeterBook(MeterRegistry registry) {
    this.registry = registry;
  }

  public void apply(Map<SeriesId, Double> values) {
    for (Iterator<Map.Entry<SeriesId, Registered>> it = meters.entrySet().iterator();
        it.hasNext(); ) {
      var entry = it.next();
      if (!values.containsKey(entry.getKey())) {
        registry.remove(entry.getValue().meter());
        it.remove();
      }
    }
    values.forEach((id, value) -> meters.computeIfAbsent(id, this::register).cell().value = value);
  }

  /** How many series the book holds. */
  public int size() {
    return meters.size();
  }

  private Registered register(SeriesId id) {
    var cell = new Cell();
    List<Tag> tags =
        id.labels().entrySet().stream().map(e -> Tag.of(e.getKey(), e.getValue())).toList();
    Metric metric = id.metric();
    // The book holds the cell, so the meter's weak reference to it lives as long as the series.
    Meter meter =
        switch (metric.kind()) {
          case GAUGE ->
              Gauge.builder(metric.meterName(), cell, Cell::value)
                  .description(metric.description())
                  .tags(tags)
                  .register(registry);
          case COUNTER ->
              FunctionCounter.builder(metric.meterName(), cell, Cell::value)
                  .description(metric.description())
                  .tags(tags)
                  .register(registry);
        };
    return new Registered(meter, cell);
  }
}
