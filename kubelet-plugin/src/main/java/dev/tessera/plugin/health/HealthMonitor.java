package dev.tessera.plugin.health;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.NvmlEvent;
import dev.tessera.plugin.nvml.NvmlEventType;
import dev.tessera.plugin.nvml.NvmlException;
import dev.tessera.plugin.nvml.NvmlHandle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches NVML's health events (XIDs, double-bit ECC) on every GPU of the node and keeps the node's
 * {@link HealthBook}; tells its listeners the whole {@link NodeHealth} each time it changes. Runs
 * on one platform thread (NVML's event wait blocks in native code).
 */
public final class HealthMonitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HealthMonitor.class);

  /**
   * One NVML event wait: short, because a wait cannot be cut off, and a stopping plugin waits for
   * it to end (a JVM exiting with a thread in native code waits up to 300 ms for it). 20 waits a
   * second cost nothing measurable; each is one poll of the driver's event file.
   */
  private static final Duration WAIT = Duration.ofMillis(50);

  private static final long GPU_LOST_XID = 79;

  private final Nvml nvml;
  private final Supplier<NodeInventory> inventory;
  private final HealthBook book;
  private final EventDevices devices;
  private final Duration probeInterval;
  private final Clock clock;
  private final List<Consumer<NodeHealth>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<HealthObservation>> observers = new CopyOnWriteArrayList<>();
  private volatile NodeHealth current = NodeHealth.ALL_HEALTHY;
  private volatile boolean running;
  private Thread thread;

  public HealthMonitor(
      Nvml nvml,
      Supplier<NodeInventory> inventory,
      HealthBook book,
      Duration probeInterval,
      Clock clock) {
    this.nvml = nvml;
    this.inventory = inventory;
    this.book = book;
    this.devices = new EventDevices(nvml, inventory);
    this.probeInterval = probeInterval;
    this.clock = clock;
  }

  /** Adds a listener and tells it the current health at once. */
  public void listen(Consumer<NodeHealth> listener) {
    listeners.add(listener);
    listener.accept(current);
  }

  /** Adds an observer of every device event, as it is seen (the metrics count XIDs). */
  public void observe(Consumer<HealthObservation> observer) {
    observers.add(observer);
  }

  public NodeHealth current() {
    return current;
  }

  public synchronized void start() {
    if (running) {
      return;
    }
    running = true;
    thread = Thread.ofPlatform().daemon().name("tessera-health").start(this::run);
  }

  private void run() {
    NvmlHandle.EventSet set;
    try {
      set = nvml.createEventSet();
    } catch (NvmlException e) {
      LOG.atError().setCause(e).log("cannot create an NVML event set; device health unmonitored");
      return;
    }
    try {
      inventory.get().gpus().forEach(gpu -> register(gpu, set));
      Instant nextProbe = clock.instant().plus(probeInterval);
      while (running) {
        waitOnce(set);
        Instant now = clock.instant();
        if (!now.isBefore(nextProbe)) {
          nextProbe = now.plus(probeInterval);
          if (book.recover(now, devices::answers)) {
            publish("recovered");
          }
        }
      }
    } finally {
      nvml.freeEventSet(set);
    }
  }

  private void register(Gpu gpu, NvmlHandle.EventSet set) {
    try {
      NvmlHandle.Device device = nvml.deviceByUuid(gpu.uuid());
      long mask = nvml.supportedEventTypes(device) & NvmlEventType.HEALTH;
      if (mask == 0) {
        LOG.atWarn().addKeyValue("gpu", gpu.uuid()).log("GPU has no health events; unmonitored");
        return;
      }
      nvml.registerEvents(device, mask, set);
    } catch (NvmlException e) {
      LOG.atWarn().addKeyValue("gpu", gpu.uuid()).setCause(e).log("GPU health unmonitored");
    }
  }

  private void waitOnce(NvmlHandle.EventSet set) {
    Optional<NvmlEvent> event;
    try {
      event = nvml.waitForEvent(set, WAIT);
    } catch (NvmlException e) {
      LOG.atWarn().setCause(e).log("NVML event wait failed");
      sleep();
      return;
    }
    event.ifPresent(this::handle);
  }

  private void handle(NvmlEvent event) {
    Optional<HealthObservation> observation;
    try {
      observation = devices.nameOf(event).map(name -> observation(name, event));
    } catch (NvmlException e) {
      LOG.atWarn().setCause(e).log("cannot tell which device an NVML event is about");
      return;
    }
    observation.ifPresent(
        seen -> {
          LOG.atWarn()
              .addKeyValue("device", seen.device())
              .addKeyValue("observation", seen)
              .log("device health event");
          for (var observer : observers) {
            try {
              observer.accept(seen);
            } catch (RuntimeException e) {
              LOG.atWarn().setCause(e).log("a health observer failed");
            }
          }
          if (book.observe(seen, clock.instant())) {
            publish("event");
          }
        });
  }

  private static HealthObservation observation(String device, NvmlEvent event) {
    if (event.is(NvmlEventType.XID_CRITICAL_ERROR)) {
      return event.eventData() == GPU_LOST_XID
          ? new HealthObservation.GpuLost(device)
          : new HealthObservation.Xid(device, event.eventData());
    }
    return new HealthObservation.DoubleBitEcc(device);
  }

  private void publish(String why) {
    current = book.snapshot();
    LOG.atInfo()
        .addKeyValue("why", why)
        .addKeyValue("unhealthyDevices", current.unhealthyCount())
        .addKeyValue("devicesWithProblems", current.devices().size())
        .log("device health changed");
    for (var listener : listeners) {
      try {
        listener.accept(current);
      } catch (RuntimeException e) {
        LOG.atWarn().setCause(e).log("a health listener failed");
      }
    }
  }

  private void sleep() {
    try {
      Thread.sleep(WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /**
   * Lets the loop end after its NVML wait in flight, without waiting for it: called first at
   * shutdown, so that the wait runs out while the kubelet sockets close, and {@link #close} finds
   * the thread gone.
   */
  public void stopSoon() {
    running = false;
  }

  /**
   * Stops the loop once its NVML wait (at most {@code WAIT}) is over. Should it not end in time,
   * NVML is left open under the wait still in flight ({@code JnaNvml.close}).
   */
  @Override
  public void close() {
    running = false;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      try {
        t.join(WAIT.multipliedBy(2).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
