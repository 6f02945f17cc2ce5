package dev.tessera.plugin.metrics;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.PreparedClaims;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples every device's telemetry on its own thread, every {@code period}: plans the series from
 * the inventory and the latest prepared claims (read without the node lock), reads NVML through its
 * own instance, and hands the values to the registry. Prepare and unprepare never wait for it. A
 * failed NVML call skips its value and is counted ({@code tessera_gpu_sample_errors_total}); a
 * sample that fails as a whole is logged, and the next one runs as planned.
 */
public final class GpuSampler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GpuSampler.class);
  static final String ERRORS = "tessera.gpu.sample.errors";

  private final String node;
  private final SeriesPlanner planner;
  private final Supplier<NodeInventory> inventory;
  private final Supplier<PreparedClaims> claims;
  private final ClaimDetailsBook details;
  private final NvmlReader reader;
  private final XidCounts xids;
  private final MeterBook meters;
  private final MeterRegistry registry;
  private final Duration period;
  private final Set<SampleFailure> logged = new HashSet<>();
  private ScheduledExecutorService executor;

  public GpuSampler(
      String node,
      SeriesPlanner planner,
      Supplier<NodeInventory> inventory,
      Supplier<PreparedClaims> claims,
      ClaimDetailsBook details,
      NvmlReader reader,
      XidCounts xids,
      MeterRegistry registry,
      Duration period) {
    this.node = node;
    this.planner = planner;
    this.inventory = inventory;
    this.claims = claims;
    this.details = details;
    this.reader = reader;
    this.xids = xids;
    this.meters = new MeterBook(registry);
    this.registry = registry;
    this.period = period;
  }

  public synchronized void start() {
    if (executor != null) {
      return;
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("tessera-metrics").factory());
    executor.scheduleWithFixedDelay(
        this::sampleSafely, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    LOG.atInfo().addKeyValue("period", period).log("sampling GPU metrics");
  }

  private void sampleSafely() {
    try {
      sample();
    } catch (RuntimeException e) {
      LOG.atWarn().setCause(e).log("GPU metrics sample failed");
    }
  }

  /** One sample; runs on the sampler's thread (or a test's). */
  synchronized void sample() {
    PreparedClaims now = claims.get();
    details.refresh(now);
    List<SampledDevice> devices = planner.plan(inventory.get(), now, details::get);
    Map<String, Readings> readings = new HashMap<>();
    for (SampledDevice device : devices) {
      readings.computeIfAbsent(
          device.uuid(), uuid -> reader.read(device.name(), uuid, this::failed));
    }
    meters.apply(MetricValues.of(node, devices, readings, xids.snapshot()));
  }

  private void failed(SampleFailure failure) {
    Counter.builder(ERRORS)
        .description("NVML calls of the GPU metrics sampler that failed; their values were skipped")
        .tag(MetricValues.NODE, node)
        .tag("call", failure.call())
        .tag("code", failure.code())
        .register(registry)
        .increment();
    if (logged.add(failure)) { // once per device, call and code: NOT_SUPPORTED repeats forever
      LOG.atInfo()
          .addKeyValue("device", failure.device())
          .addKeyValue("call", failure.call())
          .addKeyValue("code", failure.code())
          .log("NVML gives no value for this metric; skipped");
    }
  }

  @Override
  public void close() throws InterruptedException {
    ScheduledExecutorService running;
    synchronized (this) {
      running = executor;
    }
    if (running != null) {
      running.shutdownNow();
      running.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
