package dev.tessera.plugin.app;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the process with a non-zero status; the shutdown hook closes the application context, so the
 * sockets are removed before the DaemonSet restarts the pod. Tests that run the plugin in their own
 * JVM turn it off ({@code tessera.exit-on-fatal=false}) and supply their own {@link FatalErrors}.
 */
@Singleton
@Requires(property = "tessera.exit-on-fatal", notEquals = "false")
public class ExitOnFatal implements FatalErrors {
  private static final Logger LOG = LoggerFactory.getLogger(ExitOnFatal.class);

  @Override
  public void fatal(String reason) {
    LOG.atError().addKeyValue("reason", reason).log("fatal error; exiting");
    // Not on the gRPC thread: exit runs the shutdown hook, which waits for that thread's server.
    Thread.ofPlatform().name("fatal-exit").start(() -> System.exit(1));
  }
}
