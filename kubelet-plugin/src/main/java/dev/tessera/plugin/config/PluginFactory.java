package dev.tessera.plugin.config;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.OpaqueConfigDecoder;
import dev.tessera.api.events.EventPolicy;
import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.events.EventSource;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.app.KubeletSockets;
import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.cdi.DriverFiles;
import dev.tessera.plugin.cdi.NodePaths;
import dev.tessera.plugin.checkpoint.BootId;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.health.HealthBook;
import dev.tessera.plugin.health.HealthMonitor;
import dev.tessera.plugin.health.XidPolicy;
import dev.tessera.plugin.k8s.ApiServerClaims;
import dev.tessera.plugin.k8s.ClaimEventRecorder;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.k8s.KubernetesEventSink;
import dev.tessera.plugin.k8s.LeaseRenewer;
import dev.tessera.plugin.k8s.MpsDaemonPod;
import dev.tessera.plugin.k8s.PodMpsDaemons;
import dev.tessera.plugin.k8s.TypedSerialization;
import dev.tessera.plugin.kubelet.ClaimBatch;
import dev.tessera.plugin.kubelet.DraHealthService;
import dev.tessera.plugin.metrics.ClaimDetailsBook;
import dev.tessera.plugin.metrics.GpuSampler;
import dev.tessera.plugin.metrics.NvmlReader;
import dev.tessera.plugin.metrics.ObservedClaims;
import dev.tessera.plugin.metrics.SeriesPlanner;
import dev.tessera.plugin.metrics.XidCounts;
import dev.tessera.plugin.mig.DynamicMig;
import dev.tessera.plugin.mig.MigPlanner;
import dev.tessera.plugin.mig.NvmlMigHardware;
import dev.tessera.plugin.nvml.JnaNvml;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.prepare.ClaimPlanner;
import dev.tessera.plugin.prepare.ClaimRollback;
import dev.tessera.plugin.prepare.ConfigResolver;
import dev.tessera.plugin.prepare.DeviceEditsResolver;
import dev.tessera.plugin.prepare.DeviceState;
import dev.tessera.plugin.prepare.NodeClaims;
import dev.tessera.plugin.prepare.NodeLock;
import dev.tessera.plugin.prepare.StartupRecovery;
import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsDaemons;
import dev.tessera.plugin.sharing.MpsPaths;
import dev.tessera.plugin.sharing.NvidiaSmi;
import dev.tessera.plugin.sharing.OsProcessRunner;
import dev.tessera.plugin.sharing.ProcessMpsDaemons;
import dev.tessera.plugin.sharing.SharingEffects;
import dev.tessera.plugin.sharing.SharingPlanner;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/** Builds the plugin's long-lived objects from its configuration. */
@Factory
public class PluginFactory {
  private static final Logger LOG = LoggerFactory.getLogger(PluginFactory.class);
  private static final List<String> CONTROL_NODES =
      List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
  private static final Duration HEALTH_PROBE_INTERVAL = Duration.ofSeconds(1);

  /** Retries of a failed API request (waits of 100, 200, 400 ms: under a second in all). */
  private static final int PREPARE_PATH_RETRIES = 3;

  private static final Duration HEALTH_STREAM_HEARTBEAT = Duration.ofSeconds(10);

  /** Events waiting for their writer; a node prepares a few claims a second at most. */
  private static final int EVENT_QUEUE = 1000;

  /**
   * Who the plugin is to the API server: its Events' {@code source} and {@code reportingComponent},
   * and its client's user agent, after which every write's field manager is named.
   */
  static final String EVENT_COMPONENT = "tessera-kubelet-plugin";

  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }

  @Singleton
  JsonMapper jsonMapper() {
    return JsonMapper.builder().build();
  }

  /**
   * Built at start-up, for {@link KubernetesClientWarmUp} (an eager bean); its users hold
   * providers.
   */
  @Singleton
  @Bean(preDestroy = "close")
  KubernetesClient kubernetesClient(PluginConfig config) {
    Config clientConfig;
    if (config.kubeconfig() != null && !config.kubeconfig().isBlank()) {
      try {
        clientConfig = Config.fromKubeconfig(Files.readString(Path.of(config.kubeconfig())));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read kubeconfig " + config.kubeconfig(), e);
      }
    } else {
      clientConfig = Config.autoConfigure(null);
    }
    // fabric8 retries a failed request 10 times with doubling waits (~100 s in all) by default. A
    // prepare reads its claim under the node lock, on the kubelet's clock: during an API server
    // outage it must fail within a second and let the kubelet retry, not hold every other prepare
    // and unprepare of the node for minutes. The background writers (Lease, status, GpuNode)
    // retry on their own schedules.
    clientConfig.setRequestRetryBackoffLimit(PREPARE_PATH_RETRIES);
    // The API server names a write's field manager, and its audit log the client, after the user
    // agent: the plugin's Lease, GpuNode and claim status are then managed by
    // "tessera-kubelet-plugin", not by "fabric8-kubernetes-client", as the controller's writes are
    // by "tessera-controller".
    clientConfig.setUserAgent(EVENT_COMPONENT);
    return new KubernetesClientBuilder()
        .withConfig(clientConfig)
        .withHttpClientFactory(new OkHttpClientFactory())
        .withKubernetesSerialization(TypedSerialization.create())
        .build();
  }

  @Singleton
  KubeletSockets kubeletSockets(PluginConfig config) {
    return new KubeletSockets(
        config.driverName(), config.nodeName(), config.registrationSocket(), config.draSocket());
  }

  @Singleton
  NodePaths nodePaths(PluginConfig config) {
    return NodePaths.forDriverRoot(config.driverRoots());
  }

  @Singleton
  CdiSpecBuilder cdiSpecBuilder(PluginConfig config, NodePaths paths) {
    var nodes =
        CONTROL_NODES.stream()
            .filter(
                node -> {
                  boolean present = paths.exists(node);
                  if (!present) {
                    LOG.atWarn().addKeyValue("node", node).log("driver control node not found");
                  }
                  return present;
                })
            .map(paths::deviceNode)
            .toList();
    var mounts = DriverFiles.discover(config.driverRoots());
    var common = new CdiSpec.ContainerEdits(List.of("NVIDIA_VISIBLE_DEVICES=void"), nodes, mounts);
    return new CdiSpecBuilder(config.driverName(), common);
  }

  @Singleton
  @Bean(preDestroy = "close")
  ApiServerClaims apiServerClaims(
      PluginConfig config, BeanProvider<KubernetesClient> client, Clock clock) {
    return new ApiServerClaims(client::get, config.driverName(), clock, config.statusWriteDelay());
  }

  /**
   * The claims' Events: written on the recorder's own thread, never on the kubelet's path; dropped
   * ones are counted by why.
   */
  @Singleton
  @Bean(preDestroy = "close")
  EventRecorder eventRecorder(
      PluginConfig config,
      BeanProvider<KubernetesClient> client,
      Clock clock,
      MeterRegistry metrics) {
    var recorder =
        new EventRecorder(
            new EventSource(EVENT_COMPONENT, config.nodeName()),
            EventPolicy.CLIENT_GO,
            new KubernetesEventSink(client::get),
            clock,
            EVENT_QUEUE);
    for (EventRecorder.Dropped reason : EventRecorder.Dropped.values()) {
      FunctionCounter.builder("tessera.plugin.events.dropped", recorder, r -> r.dropped(reason))
          .description("Events not written: rate limited, queue full, or refused by the API server")
          .tag("reason", reason.name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .register(metrics);
    }
    FunctionCounter.builder("tessera.plugin.events.written", recorder, EventRecorder::written)
        .description("Event creates and repeats the API server took")
        .register(metrics);
    return recorder;
  }

  @Singleton
  SharingEffects sharingEffects(
      PluginConfig config, BeanProvider<KubernetesClient> client, Clock clock) {
    var tools =
        new DriverTools(Path.of(config.driverRoot()), new OsProcessRunner(config.toolTimeout()));
    var paths = new MpsPaths(config.mpsDir());
    MpsDaemons daemons =
        config.mpsDaemonsInPods()
            ? new PodMpsDaemons(
                paths,
                tools,
                new MpsDaemonPod(
                    config.mpsDaemonNamespace(),
                    config.nodeName(),
                    config.mpsDaemonImage(),
                    config.mpsDaemonPullPolicy(),
                    config.mpsDaemonPrivileged(),
                    config.driverRoots().onHost().toString(),
                    config.driverRoot(),
                    config.driverRootReadOnly(),
                    config.mpsDaemonPriorityClass()),
                client::get,
                clock,
                config.toolTimeout())
            : new ProcessMpsDaemons(paths, tools);
    return new SharingEffects(new NvidiaSmi(tools), daemons);
  }

  @Singleton
  NodeClaims nodeClaims(PluginConfig config, JsonMapper json) {
    var store = new CheckpointStore(config.checkpointFile(), json);
    return new NodeClaims(
        store, NodeLock.beside(store.file()), BootId.read(Path.of(config.bootIdFile())));
  }

  @Singleton
  CdiSpecWriter cdiSpecWriter(PluginConfig config, JsonMapper json) {
    return new CdiSpecWriter(Path.of(config.cdiDir()), config.driverName(), json);
  }

  @Singleton
  SharingPlanner sharingPlanner() {
    return new SharingPlanner();
  }

  @Singleton
  DynamicMig dynamicMig(Nvml nvml, Supplier<NodeInventory> inventory) {
    return new DynamicMig(new MigPlanner(), new NvmlMigHardware(nvml), inventory);
  }

  @Singleton
  ClaimRollback claimRollback(
      NodeClaims node,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      RediscoverableInventory discovered,
      GpuNodeReporter gpuNode) {
    // A plugin that started while dynamic MIG devices existed discovered them (and MIG mode on):
    // once they are gone, the GpuNode must stop showing them, or the next offering renders a GPU
    // that is not there (a whole GPU hidden as "in MIG mode", MIG devices that do not exist).
    return new ClaimRollback(
        node,
        cdiWriter,
        sharingPlanner,
        sharing,
        mig,
        destroyed -> {
          var gpus = destroyed.stream().map(CreatedMig::gpuUuid).collect(Collectors.toSet());
          boolean stale =
              discovered.current().gpus().stream()
                  .anyMatch(
                      g ->
                          gpus.contains(g.uuid())
                              && (g.migMode() == MigMode.ENABLED || !g.migDevices().isEmpty()));
          if (stale) {
            discovered.rediscover();
            gpuNode.inventoryChanged(discovered.current());
          }
        });
  }

  @Singleton
  StartupRecovery startupRecovery(
      NodeClaims node,
      ClaimRollback rollback,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      RediscoverableInventory discovered) {
    return new StartupRecovery(
        node, rollback, cdiWriter, sharingPlanner, sharing, mig, discovered::rediscover);
  }

  @Singleton
  DeviceState deviceState(
      PluginConfig config,
      BeanProvider<KubernetesClient> client,
      ApiServerClaims claims,
      Supplier<NodeInventory> inventory,
      CdiSpecBuilder cdiBuilder,
      NodePaths paths,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      NodeClaims node,
      ClaimRollback rollback,
      ClaimDetailsBook claimDetails,
      EventRecorder events,
      GpuNodeReporter gpuNode) {
    var resolver =
        new ConfigResolver(
            config.driverName(),
            new OpaqueConfigDecoder(),
            parameters ->
                parameters instanceof Map<?, ?>
                    ? parameters
                    : client
                        .get()
                        .getKubernetesSerialization()
                        .convertValue(parameters, Map.class));
    return new DeviceState(
        new ObservedClaims(claims, claimDetails),
        new ClaimPlanner(config.driverName(), config.nodeName(), resolver),
        inventory,
        cdiBuilder,
        new DeviceEditsResolver(paths, sharing.mpsPaths()),
        cdiWriter,
        sharingPlanner,
        sharing,
        mig,
        node,
        rollback,
        new ClaimEventRecorder(events),
        gpuNode);
  }

  /**
   * Takes the device state and the inventory only when it rehearses, on the warm-up's thread, so
   * that building them never holds back the warm-up's first connection to the API server.
   */
  @Singleton
  PrepareWarmUp prepareWarmUp(
      PluginConfig config,
      BeanProvider<DeviceState> state,
      BeanProvider<RediscoverableInventory> inventory) {
    return new PrepareWarmUp(
        config.driverName(),
        config.nodeName(),
        () -> state.get()::rehearse,
        () -> inventory.get().current());
  }

  @Singleton
  @Bean(preDestroy = "close")
  GpuNodeReporter gpuNodeReporter(
      PluginConfig config,
      BeanProvider<KubernetesClient> client,
      JsonMapper json,
      Clock clock,
      NodeClaims node) {
    return new GpuNodeReporter(client::get, config.nodeName(), json, clock, node::current);
  }

  @Singleton
  @Bean(preDestroy = "close")
  LeaseRenewer leaseRenewer(
      PluginConfig config, BeanProvider<KubernetesClient> client, Clock clock) {
    return new LeaseRenewer(
        client::get,
        config.leaseNamespace(),
        config.nodeName(),
        config.leaseHolder(),
        config.leaseDuration(),
        clock);
  }

  @Singleton
  @Bean(preDestroy = "close")
  HealthMonitor healthMonitor(
      PluginConfig config, Nvml nvml, Supplier<NodeInventory> inventory, Clock clock) {
    var book =
        new HealthBook(
            new XidPolicy(new HashSet<>(config.healthIgnoredXids())), config.healthRecovery());
    return new HealthMonitor(nvml, inventory, book, HEALTH_PROBE_INTERVAL, clock);
  }

  /**
   * The health stream names every device the kubelet may ask about: the GPUs, their MIG devices and
   * whatever is prepared (MIG placements of the dynamic offering included).
   */
  @Singleton
  @Bean(preDestroy = "close")
  DraHealthService draHealthService(
      PluginConfig config, Supplier<NodeInventory> inventory, DeviceState state, Clock clock) {
    Supplier<Collection<String>> names =
        () -> {
          var all = new HashSet<String>();
          for (var gpu : inventory.get().gpus()) {
            all.add(new DeviceName.Gpu(gpu.minor()).value());
            for (var mig : gpu.migDevices()) {
              all.add(DeviceName.Mig.of(gpu.minor(), mig).value());
            }
          }
          state.checkpoint().claims().values().stream()
              .flatMap(entry -> entry.devices().stream())
              .filter(device -> device.pool().equals(config.nodeName()))
              .forEach(device -> all.add(device.device()));
          return all;
        };
    return new DraHealthService(config.nodeName(), names, HEALTH_STREAM_HEARTBEAT, clock);
  }

  @Singleton
  XidCounts xidCounts(HealthMonitor health) {
    var xids = new XidCounts();
    health.observe(xids::observe);
    return xids;
  }

  @Singleton
  ClaimDetailsBook claimDetailsBook(PluginConfig config, ApiServerClaims claims, Clock clock) {
    return new ClaimDetailsBook(
        claims, config.driverName(), config.nodeName(), config.metricsClaimRefresh(), clock);
  }

  /**
   * Telemetry through an NVML instance of its own: the binding serializes each instance's calls, so
   * the sampler's never queue before a prepare's MIG calls.
   */
  @Singleton
  @Bean(preDestroy = "close")
  NvmlReader nvmlReader(PluginConfig config) {
    return new NvmlReader(JnaNvml.open(Path.of(config.driverRoot())));
  }

  @Singleton
  @Bean(preDestroy = "close")
  GpuSampler gpuSampler(
      PluginConfig config,
      Supplier<NodeInventory> inventory,
      NodeClaims node,
      ClaimDetailsBook claimDetails,
      NvmlReader reader,
      XidCounts xids,
      MeterRegistry metrics) {
    return new GpuSampler(
        config.nodeName(),
        new SeriesPlanner(config.nodeName()),
        inventory,
        node::current,
        claimDetails,
        reader,
        xids,
        metrics,
        config.metricsPeriod());
  }

  @Singleton
  ClaimBatch claimBatch(DeviceState state, MeterRegistry metrics) {
    return new ClaimBatch(state, metrics);
  }
}
