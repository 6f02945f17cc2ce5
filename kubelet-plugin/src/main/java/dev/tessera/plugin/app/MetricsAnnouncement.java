package dev.tessera.plugin.app;

import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says which port {@code /prometheus} and {@code /health} are served on, once bound. With {@code
 * TESSERA_METRICS_PORT=-1} the port is random (two plugin pods share a host network during a
 * rolling upgrade), and this line is how a scraper outside the pod's spec finds it.
 */
@Singleton
public class MetricsAnnouncement implements ApplicationEventListener<ServerStartupEvent> {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsAnnouncement.class);

  @Override
  public void onApplicationEvent(ServerStartupEvent event) {
    LOG.atInfo()
        .addKeyValue("port", event.getSource().getPort())
        .addKeyValue("path", "/prometheus")
        .log("serving metrics");
  }
}
