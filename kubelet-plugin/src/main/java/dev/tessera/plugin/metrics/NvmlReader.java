package dev.tessera.plugin.metrics;

import dev.tessera.plugin.nvml.MemoryErrorType;
import dev.tessera.plugin.nvml.MemoryInfo;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.NvmlException;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.ProcessInfo;
import dev.tessera.plugin.nvml.Utilization;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * Reads one device's telemetry from NVML, in the series' units. Each value is its own call: one
 * that fails (NOT_SUPPORTED on a MIG device, an injected fault, a lost GPU) skips that value and is
 * reported, and the others are still read. It has its own NVML instance, so the binding's lock it
 * takes is never the one a prepare waits on.
 */
public final class NvmlReader implements AutoCloseable {
  private static final double PERCENT = 100.0;
  private static final double MILLIWATTS = 1000.0;
  private static final double MHZ = 1_000_000.0;

  private final Nvml nvml;

  public NvmlReader(Nvml nvml) {
    this.nvml = nvml;
  }

  public Readings read(String name, String uuid, Consumer<SampleFailure> failed) {
    Device device;
    try {
      device = nvml.deviceByUuid(uuid);
    } catch (NvmlException e) {
      failed.accept(failure(name, e));
      return Readings.NONE;
    }
    var values = new EnumMap<Metric, Double>(Metric.class);
    read(name, failed, () -> nvml.utilization(device))
        .ifPresent(
            (Utilization u) -> {
              values.put(Metric.GPU_UTILIZATION, u.gpuPercent() / PERCENT);
              values.put(Metric.MEMORY_UTILIZATION, u.memoryPercent() / PERCENT);
            });
    read(name, failed, () -> nvml.memoryInfo(device))
        .ifPresent(
            (MemoryInfo m) -> {
              values.put(Metric.MEMORY_USED, (double) m.used());
              values.put(Metric.MEMORY_TOTAL, (double) m.total());
            });
    put(
        values,
        Metric.POWER,
        read(name, failed, () -> nvml.powerUsageMilliwatts(device)),
        p -> p / MILLIWATTS);
    put(
        values,
        Metric.TEMPERATURE,
        read(name, failed, () -> nvml.temperatureCelsius(device)),
        t -> t);
    put(values, Metric.SM_CLOCK, read(name, failed, () -> nvml.smClockMhz(device)), c -> c * MHZ);
    put(
        values,
        Metric.ECC_CORRECTED,
        read(name, failed, () -> nvml.volatileEccErrors(device, MemoryErrorType.CORRECTED)),
        Long::doubleValue);
    put(
        values,
        Metric.ECC_UNCORRECTED,
        read(name, failed, () -> nvml.volatileEccErrors(device, MemoryErrorType.UNCORRECTED)),
        Long::doubleValue);
    // NVML cannot say which claim an MPS client belongs to: the sum is the device's.
    put(
        values,
        Metric.MPS_CLIENT_MEMORY,
        read(name, failed, () -> nvml.mpsProcesses(device)),
        processes ->
            processes.stream()
                .filter(ProcessInfo::memoryKnown)
                .mapToLong(ProcessInfo::usedGpuMemory)
                .sum());
    return new Readings(values);
  }

  private interface Call<T> {
    T call();
  }

  private static <T> Optional<T> read(String name, Consumer<SampleFailure> failed, Call<T> call) {
    try {
      return Optional.of(call.call());
    } catch (NvmlException e) {
      failed.accept(failure(name, e));
      return Optional.empty();
    }
  }

  private static <T> void put(
      Map<Metric, Double> values, Metric metric, Optional<T> value, ToDoubleFunction<T> convert) {
    value.ifPresent(v -> values.put(metric, convert.applyAsDouble(v)));
  }

  private static SampleFailure failure(String name, NvmlException e) {
    return new SampleFailure(name, e.call(), e.codeName());
  }

  @Override
  public void close() {
    nvml.close();
  }
}
