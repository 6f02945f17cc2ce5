package dev.tessera.plugin.kubelet;

import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.kubelet.drahealth.v1alpha1.DRAResourceHealthGrpc;
import dev.tessera.api.kubelet.drahealth.v1alpha1.DeviceHealth;
import dev.tessera.api.kubelet.drahealth.v1alpha1.DeviceIdentifier;
import dev.tessera.api.kubelet.drahealth.v1alpha1.HealthStatus;
import dev.tessera.api.kubelet.drahealth.v1alpha1.NodeWatchResourcesRequest;
import dev.tessera.api.kubelet.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's DRA health stream ({@code v1alpha1.DRAResourceHealth}): each watcher gets the
 * complete health of the node's devices at once, on every change, and again every {@code heartbeat}
 * (the kubelet marks a device Unknown when it has heard nothing of it for a while). The kubelet
 * shows it in the pod status of containers using the devices.
 */
public final class DraHealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase
    implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DraHealthService.class);
  private static final int MAX_MESSAGE = 1024;

  private final String pool;
  private final Supplier<Collection<String>> deviceNames;
  private final Duration heartbeat;
  private final Clock clock;
  private final Set<ServerCallStreamObserver<NodeWatchResourcesResponse>> watchers =
      ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("tessera-health-stream").factory());
  private volatile NodeHealth health = NodeHealth.ALL_HEALTHY;

  /**
   * @param pool the node's pool (the node name)
   * @param deviceNames the devices to report besides those with problems: the node's GPUs, its MIG
   *     devices and every prepared device
   */
  public DraHealthService(
      String pool, Supplier<Collection<String>> deviceNames, Duration heartbeat, Clock clock) {
    this.pool = pool;
    this.deviceNames = deviceNames;
    this.heartbeat = heartbeat;
    this.clock = clock;
    ticker.scheduleWithFixedDelay(
        this::sendToAll, heartbeat.toMillis(), heartbeat.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Takes the node's new health and sends it to every watcher. */
  public void update(NodeHealth health) {
    this.health = health;
    ticker.execute(this::sendToAll);
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> observer) {
    var watcher = (ServerCallStreamObserver<NodeWatchResourcesResponse>) observer;
    watcher.setOnCancelHandler(() -> watchers.remove(watcher));
    watchers.add(watcher);
    LOG.info("the kubelet watches device health");
    ticker.execute(() -> send(watcher, response()));
  }

  NodeWatchResourcesResponse response() {
    NodeHealth now = health;
    var names = new TreeSet<>(deviceNames.get());
    now.devices().forEach(d -> names.add(d.device()));
    long updated = clock.instant().getEpochSecond();
    var response = NodeWatchResourcesResponse.newBuilder();
    for (String name : names) {
      var problems = now.problemsOf(name);
      response.addDevices(
          DeviceHealth.newBuilder()
              .setDevice(DeviceIdentifier.newBuilder().setPoolName(pool).setDeviceName(name))
              .setHealth(now.healthy(name) ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY)
              .setLastUpdatedTime(updated)
              .setHealthCheckTimeoutSeconds(heartbeat.multipliedBy(3).toSeconds())
              .setMessage(message(problems.stream().map(DeviceProblem::message).toList())));
    }
    return response.build();
  }

  private static String message(Collection<String> messages) {
    String joined = messages.stream().distinct().collect(Collectors.joining("; "));
    return joined.length() <= MAX_MESSAGE ? joined : joined.substring(0, MAX_MESSAGE - 3) + "...";
  }

  private void sendToAll() {
    if (watchers.isEmpty()) {
      return;
    }
    var response = response();
    watchers.forEach(watcher -> send(watcher, response));
  }

  /** Runs on the ticker thread only, so no two sends race on one stream. */
  private void send(
      ServerCallStreamObserver<NodeWatchResourcesResponse> watcher,
      NodeWatchResourcesResponse response) {
    if (watcher.isCancelled()) {
      watchers.remove(watcher);
      return;
    }
    try {
      watcher.onNext(response);
    } catch (RuntimeException e) {
      LOG.atWarn().setCause(e).log("cannot send device health; dropping the watcher");
      watchers.remove(watcher);
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    watchers.forEach(
        watcher -> {
          try {
            watcher.onCompleted();
          } catch (RuntimeException e) {
            // the stream is already gone
          }
        });
    watchers.clear();
  }
}
