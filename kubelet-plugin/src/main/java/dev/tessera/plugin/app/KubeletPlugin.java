package dev.tessera.plugin.app;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.health.HealthMonitor;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.k8s.LeaseRenewer;
import dev.tessera.plugin.kubelet.ClaimBatch;
import dev.tessera.plugin.kubelet.DraHealthService;
import dev.tessera.plugin.kubelet.DraV1Service;
import dev.tessera.plugin.kubelet.DraV1beta1Service;
import dev.tessera.plugin.kubelet.RegistrationService;
import dev.tessera.plugin.kubelet.UnixSocketServer;
import dev.tessera.plugin.metrics.GpuSampler;
import dev.tessera.plugin.prepare.StartupRecovery;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.StartupEvent;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's life with the kubelet: serves DRA first, then offers itself for registration (the
 * kubelet dials the DRA socket as soon as it has registered us); at shutdown removes the
 * registration socket first so the kubelet stops sending work before the DRA server goes.
 *
 * <p>Registration waits for the start-up's warm-up (the API client's first connection, a prepare's
 * spec and reply rendered once), at most {@link #WARM_UP_WAIT}: the kubelet sends claims only to a
 * registered plugin, so its first claim then finds the connection open instead of waiting for its
 * TLS handshake. An API server that refuses the connection ends the warm-up within a second (the
 * client's retries); one that does not answer is waited for until {@link #WARM_UP_WAIT} has passed.
 * The plugin registers either way, as it would have without the wait.
 */
@Context
public class KubeletPlugin implements ApplicationEventListener<StartupEvent> {
  private static final Logger LOG = LoggerFactory.getLogger(KubeletPlugin.class);
  static final Duration WARM_UP_WAIT = Duration.ofSeconds(2);

  private final KubeletSockets sockets;
  private final StartupRecovery recovery;
  private final ClaimBatch batch;
  private final RegistrationService registration;
  private final Supplier<NodeInventory> inventory;
  private final GpuNodeReporter gpuNode;
  private final LeaseRenewer lease;
  private final HealthMonitor health;
  private final DraHealthService healthService;
  private final GpuSampler sampler;
  private final StartupWarmUp warmUp;
  private final FatalErrors fatalErrors;
  private UnixSocketServer draServer;
  // Guarded by this: registration is offered from the warm-up's thread, and must not be after stop.
  private UnixSocketServer registrationServer;
  private boolean stopped;

  public KubeletPlugin(
      KubeletSockets sockets,
      StartupRecovery recovery,
      ClaimBatch batch,
      FatalErrors fatalErrors,
      Supplier<NodeInventory> inventory,
      GpuNodeReporter gpuNode,
      LeaseRenewer lease,
      HealthMonitor health,
      DraHealthService healthService,
      GpuSampler sampler,
      StartupWarmUp warmUp) {
    this.sockets = sockets;
    this.recovery = recovery;
    this.batch = batch;
    this.inventory = inventory;
    this.gpuNode = gpuNode;
    this.lease = lease;
    this.health = health;
    this.healthService = healthService;
    this.sampler = sampler;
    this.warmUp = warmUp;
    this.fatalErrors = fatalErrors;
    this.registration =
        new RegistrationService(
            sockets.driverName(),
            sockets.draSocket().toAbsolutePath().toString(),
            fatalErrors::fatal);
  }

  public RegistrationService registration() {
    return registration;
  }

  @Override
  public void onApplicationEvent(StartupEvent event) {
    try {
      recovery.recover();
      draServer =
          UnixSocketServer.start(
              sockets.draSocket(),
              List.of(new DraV1Service(batch), new DraV1beta1Service(batch), healthService));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve the kubelet's DRA socket", e);
    }
    health.listen(healthService::update);
    health.start();
    sampler.start();
    LOG.atInfo()
        .addKeyValue("driver", sockets.driverName())
        .addKeyValue("node", sockets.nodeName())
        .addKeyValue("draSocket", sockets.draSocket())
        .addKeyValue("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime())
        .log("serving the kubelet");
    warmUp
        .done()
        .toCompletableFuture()
        .copy()
        .completeOnTimeout(null, WARM_UP_WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .thenRun(this::offerRegistration);
  }

  private void offerRegistration() {
    synchronized (this) {
      if (stopped) {
        return;
      }
      try {
        registrationServer =
            UnixSocketServer.start(sockets.registrationSocket(), List.of(registration));
      } catch (IOException | RuntimeException e) {
        LOG.atError().setCause(e).log("cannot serve the kubelet's registration socket");
        fatalErrors.fatal("cannot serve the registration socket " + sockets.registrationSocket());
        return;
      }
    }
    // Once the kubelet has us: tell the cluster what this node has, and that we are alive.
    registration
        .registered()
        .thenRunAsync(this::announce, Thread.ofVirtual()::start)
        .exceptionally(
            failure -> {
              LOG.atError().setCause(failure).log("cannot announce the node to the cluster");
              return null;
            });
    LOG.atInfo()
        .addKeyValue("registrationSocket", sockets.registrationSocket())
        .addKeyValue("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime())
        .log("offering registration to the kubelet");
  }

  /** Reports the inventory (retrying until the API server takes it) and starts the Lease. */
  private void announce() {
    lease.start();
    health.listen(gpuNode::reportHealth);
    for (int attempt = 1; ; attempt++) {
      try {
        gpuNode.report(inventory.get());
        return;
      } catch (RuntimeException e) {
        LOG.atWarn()
            .addKeyValue("attempt", attempt)
            .setCause(e)
            .log("cannot report the GpuNode status yet");
        try {
          Thread.sleep(Duration.ofSeconds(Math.min(30, 2L * attempt)));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @PreDestroy
  void stop() throws IOException {
    // Its NVML wait cannot be cut short: let it run out while the sockets close.
    health.stopSoon();
    synchronized (this) {
      stopped = true;
      if (registrationServer != null) {
        registrationServer.close();
      }
    }
    if (draServer != null) {
      draServer.close();
    }
    LOG.info("stopped serving the kubelet");
  }
}
