package dev.tessera.controller.admission;

import dev.tessera.controller.config.ControllerConfig;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Serves the admission webhook when a certificate is configured ({@code
 * TESSERA_CONTROLLER_WEBHOOK_CERT_FILE}); every replica serves it, leader or not.
 */
@Factory
public class WebhookFactory {

  @Context
  @Bean(preDestroy = "close")
  @Requires(property = "tessera.controller.webhook-cert-file")
  WebhookServer webhookServer(ControllerConfig config, JsonMapper json)
      throws IOException, GeneralSecurityException {
    if (config.webhookKeyFile() == null || config.webhookKeyFile().isBlank()) {
      throw new IllegalStateException(
          "TESSERA_CONTROLLER_WEBHOOK_CERT_FILE is set but TESSERA_CONTROLLER_WEBHOOK_KEY_FILE is"
              + " not");
    }
    var reviews = AdmissionReviews.of(config.driverName(), json);
    var server =
        new WebhookServer(
            new InetSocketAddress(config.webhookPort()),
            PemTls.serverContext(
                Path.of(config.webhookCertFile()), Path.of(config.webhookKeyFile())),
            reviews);
    server.start();
    return server;
  }
}
