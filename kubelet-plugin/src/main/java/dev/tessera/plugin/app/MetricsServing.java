package dev.tessera.plugin.app;

import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.core.order.Ordered;
import java.util.function.Supplier;

/**
 * Starts the {@link MetricsServer} once the plugin has started, after {@link KubeletPlugin} has put
 * up the kubelet's sockets (the last listener of the start-up): the kubelet's registration does not
 * wait for an HTTP server's classes. Stops it with the context.
 */
public final class MetricsServing implements ApplicationEventListener<StartupEvent>, Ordered {
  private final int port;
  private final Supplier<String> scrape;
  private volatile MetricsServer server;

  /**
   * @param port the port of {@code /prometheus} and {@code /health}; negative for a free one
   * @param scrape the metrics in the Prometheus text format
   */
  public MetricsServing(int port, Supplier<String> scrape) {
    this.port = port;
    this.scrape = scrape;
  }

  @Override
  public void onApplicationEvent(StartupEvent event) {
    server = MetricsServer.start(port, scrape);
  }

  @Override
  public int getOrder() {
    return LOWEST_PRECEDENCE;
  }

  /** The port served, or -1 before the start. */
  public int port() {
    MetricsServer current = server;
    return current == null ? -1 : current.port();
  }

  public void close() {
    MetricsServer current = server;
    if (current != null) {
      current.close();
    }
  }
}
