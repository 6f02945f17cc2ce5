package dev.tessera.plugin.kubelet;

import dev.tessera.plugin.config.PluginConfig;
import dev.tessera.plugin.prepare.DeviceState;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.StartupEvent;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's life with the kubelet: serves DRA first, then offers itself for registration (the
 * kubelet dials the DRA socket as soon as it has registered us); at shutdown removes the
 * registration socket first so the kubelet stops sending work before the DRA server goes.
 */
@Context
public class KubeletPlugin implements ApplicationEventListener<StartupEvent> {
  private static final Logger LOG = LoggerFactory.getLogger(KubeletPlugin.class);

  private final PluginConfig config;
  private final DeviceState state;
  private final ClaimBatch batch;
  private final RegistrationService registration;
  private UnixSocketServer draServer;
  private UnixSocketServer registrationServer;

  public KubeletPlugin(
      PluginConfig config, DeviceState state, ClaimBatch batch, FatalErrors fatalErrors) {
    this.config = config;
    this.state = state;
    this.batch = batch;
    this.registration =
        new RegistrationService(
            config.driverName(),
            config.draSocket().toAbsolutePath().toString(),
            fatalErrors::fatal);
  }

  public RegistrationService registration() {
    return registration;
  }

  @Override
  public void onApplicationEvent(StartupEvent event) {
    try {
      state.recover();
      draServer =
          UnixSocketServer.start(
              config.draSocket(), List.of(new DraV1Service(batch), new DraV1beta1Service(batch)));
      registrationServer =
          UnixSocketServer.start(config.registrationSocket(), List.of(registration));
      LOG.atInfo()
          .addKeyValue("driver", config.driverName())
          .addKeyValue("node", config.nodeName())
          .addKeyValue("registrationSocket", config.registrationSocket())
          .addKeyValue("draSocket", config.draSocket())
          .addKeyValue("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime())
          .log("serving the kubelet");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve the kubelet sockets", e);
    }
  }

  @PreDestroy
  void stop() throws IOException {
    if (registrationServer != null) {
      registrationServer.close();
    }
    if (draServer != null) {
      draServer.close();
    }
    LOG.info("stopped serving the kubelet");
  }
}
