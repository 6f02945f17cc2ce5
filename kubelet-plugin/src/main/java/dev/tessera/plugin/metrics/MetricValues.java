package dev.tessera.plugin.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The value of every series of one sample: each device's readings, repeated on the series of each
 * of its holders (NVML measures the device, not the claim), the XIDs seen on it, and a holder's
 * consumed memory. Pure.
 */
public final class MetricValues {
  public static final String NODE = "node";
  public static final String DEVICE = "device";
  public static final String UUID = "uuid";
  public static final String CLAIM_NAMESPACE = "claim_namespace";
  public static final String CLAIM_NAME = "claim_name";
  public static final String CLAIM_UID = "claim_uid";
  public static final String PODS = "pods";

  private MetricValues() {}

  /**
   * @param readings by device UUID; a device without readings has only its XID and consumed-memory
   *     series
   * @param xids XIDs seen, by device name
   */
  public static Map<SeriesId, Double> of(
      String node,
      Iterable<SampledDevice> devices,
      Map<String, Readings> readings,
      Map<String, Long> xids) {
    var values = new LinkedHashMap<SeriesId, Double>();
    for (SampledDevice device : devices) {
      Readings read = readings.getOrDefault(device.uuid(), Readings.NONE);
      for (Holder holder : device.holders()) {
        Map<String, String> labels = labels(node, device, holder);
        read.values().forEach((metric, value) -> values.put(new SeriesId(metric, labels), value));
        values.put(
            new SeriesId(Metric.XID_ERRORS, labels),
            xids.getOrDefault(device.name(), 0L).doubleValue());
        if (holder.consumedMemoryBytes() != null) {
          values.put(
              new SeriesId(Metric.CONSUMED_MEMORY, labels),
              holder.consumedMemoryBytes().doubleValue());
        }
      }
    }
    return values;
  }

  private static Map<String, String> labels(String node, SampledDevice device, Holder holder) {
    var labels = new LinkedHashMap<String, String>();
    labels.put(NODE, node);
    labels.put(DEVICE, device.name());
    labels.put(UUID, device.uuid());
    labels.put(CLAIM_NAMESPACE, holder.namespace());
    labels.put(CLAIM_NAME, holder.name());
    labels.put(CLAIM_UID, holder.uid());
    labels.put(PODS, String.join(",", holder.pods()));
    return labels;
  }
}
