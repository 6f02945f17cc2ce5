package dev.tessera.plugin.k8s;

import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsDaemons;
import dev.tessera.plugin.sharing.MpsPaths;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MPS control daemons in pods of their own ({@link MpsDaemonPod}), created and deleted by this
 * plugin on its node: a daemon and its clients outlive the plugin's pod (a rolling upgrade, a
 * crash). The plugin talks to a daemon as any MPS client does, through the pipe dir on the host
 * ({@code nvidia-cuda-mps-control} with {@code get_server_list} or {@code quit}), which works
 * across the pods' PID namespaces; so it needs no right to read pods, only to create and delete its
 * daemons' pods. The device's dirs say which daemons there may be.
 */
public final class PodMpsDaemons implements MpsDaemons {
  private static final Logger LOG = LoggerFactory.getLogger(PodMpsDaemons.class);
  private static final String TOOL = "nvidia-cuda-mps-control";
  private static final Duration POLL = Duration.ofMillis(100);

  private final MpsPaths paths;
  private final DriverTools tools;
  private final MpsDaemonPod pods;
  private final Supplier<KubernetesClient> client;
  private final Clock clock;
  private final Duration startTimeout;

  public PodMpsDaemons(
      MpsPaths paths,
      DriverTools tools,
      MpsDaemonPod pods,
      Supplier<KubernetesClient> client,
      Clock clock,
      Duration startTimeout) {
    this.paths = paths;
    this.tools = tools;
    this.pods = pods;
    this.client = client;
    this.clock = clock;
    this.startTimeout = startTimeout;
  }

  @Override
  public MpsPaths paths() {
    return paths;
  }

  @Override
  public boolean running(String deviceUuid) {
    try {
      return tools.tryRun(TOOL, List.of(), paths.daemonEnv(deviceUuid), "get_server_list\n").ok();
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Creates the device's pod unless its daemon answers. A pod of that name that is there but does
   * not answer (one that quit, or a start a crashed plugin left half-way) is replaced: it has no
   * clients, as none could reach it.
   */
  @Override
  public void start(String deviceUuid) throws IOException {
    if (running(deviceUuid)) {
      return;
    }
    paths.createDeviceDirs(deviceUuid);
    var pod =
        pods.build(
            deviceUuid, tools.command(TOOL, List.of("-f"), paths.daemonEnv(deviceUuid)), paths);
    String name = pod.getMetadata().getName();
    try {
      try {
        client.get().resource(pod).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        delete(name);
        client.get().resource(pod).create();
      }
    } catch (KubernetesClientException e) {
      throw new IOException(
          "cannot create the MPS control daemon pod " + where(name) + ": " + e.getMessage(), e);
    }
    Instant deadline = clock.instant().plus(startTimeout);
    while (!running(deviceUuid)) {
      if (clock.instant().isAfter(deadline)) {
        delete(name);
        throw new IOException(
            "the MPS control daemon pod "
                + where(name)
                + " did not answer within "
                + startTimeout
                + " (removed; kubectl describe pod and its events say why)");
      }
      pause();
    }
    LOG.atInfo()
        .addKeyValue("device.uuid", deviceUuid)
        .addKeyValue("pod", where(name))
        .log("MPS control daemon started in its own pod");
  }

  @Override
  public void stop(String deviceUuid) throws IOException {
    String name = pods.name(deviceUuid);
    if (running(deviceUuid)) {
      var quit = tools.tryRun(TOOL, List.of(), paths.daemonEnv(deviceUuid), "quit\n");
      if (!quit.ok() && running(deviceUuid)) {
        throw new IOException(
            "MPS control daemon of " + deviceUuid + " did not quit: " + quit.output());
      }
    }
    delete(name);
    LOG.atInfo()
        .addKeyValue("device.uuid", deviceUuid)
        .addKeyValue("pod", where(name))
        .log("MPS control daemon stopped");
    paths.deleteDeviceDir(deviceUuid);
  }

  @Override
  public List<String> known() throws IOException {
    return paths.devices();
  }

  /** Deletes the pod at once (grace 0): its daemon quit, or never answered; gone is fine. */
  private void delete(String name) throws IOException {
    try {
      client.get().pods().inNamespace(pods.namespace()).withName(name).withGracePeriod(0).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw new IOException(
            "cannot delete the MPS control daemon pod " + where(name) + ": " + e.getMessage(), e);
      }
    }
  }

  private String where(String name) {
    return pods.namespace() + "/" + name;
  }

  private static void pause() throws IOException {
    try {
      Thread.sleep(POLL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for an MPS control daemon", e);
    }
  }
}
