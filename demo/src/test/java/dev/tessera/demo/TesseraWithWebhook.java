package dev.tessera.demo;

import static org.awaitility.Awaitility.await;

import dev.tessera.controller.admission.SelfSignedCert;
import dev.tessera.controller.admission.WebhookServer;
import dev.tessera.controller.render.Offering;
import dev.tessera.demo.TesseraDeployment.Kind;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Tessera with its admission webhook in force on the cluster, on a node of two simulated H100s
 * offered exclusively. Installed with Helm, the webhook is the chart's (its certificate, the
 * controller pod); with host processes, the shipped deploy/manifests/admission-webhook.yaml pointed
 * at {@code https://127.0.0.1:<port>} with a certificate made for the test as the caBundle.
 */
final class TesseraWithWebhook implements AutoCloseable {
  private final TesseraOnNode tessera;
  private final Path dir;
  private final ValidatingWebhookConfiguration registered;

  private TesseraWithWebhook(
      TesseraOnNode tessera, Path dir, ValidatingWebhookConfiguration registered) {
    this.tessera = tessera;
    this.dir = dir;
    this.registered = registered;
  }

  static TesseraWithWebhook start(Cluster cluster) throws Exception {
    Path dir = Files.createTempDirectory("tessera-webhook-e2e");
    if (Kind.chosen() == Kind.HELM) {
      return new TesseraWithWebhook(
          TesseraOnNode.start(
              cluster, Kind.HELM, "H100-SXM5-80GB", 2, Offering.EXCLUSIVE, Map.of()),
          dir,
          null);
    }
    var cert = SelfSignedCert.create(dir);
    int port = freePort();
    var tessera =
        TesseraOnNode.start(
            cluster,
            Kind.HOST,
            "H100-SXM5-80GB",
            2,
            Offering.EXCLUSIVE,
            Map.of(
                "TESSERA_CONTROLLER_WEBHOOK_CERT_FILE", cert.certFile().toString(),
                "TESSERA_CONTROLLER_WEBHOOK_KEY_FILE", cert.keyFile().toString(),
                "TESSERA_CONTROLLER_WEBHOOK_PORT", Integer.toString(port)));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Files.readString(tessera.processes().controller().log())
                    .contains("admission webhook serving"));
    return new TesseraWithWebhook(tessera, dir, register(tessera, port, cert.caBundle()));
  }

  TesseraOnNode tessera() {
    return tessera;
  }

  /** The shipped webhook configuration, pointed at the controller on this host. */
  private static ValidatingWebhookConfiguration register(
      TesseraOnNode tessera, int port, String caBundle) throws IOException {
    List<HasMetadata> items;
    try (var in =
        Files.newInputStream(TesseraOnNode.repoFile("deploy/manifests/admission-webhook.yaml"))) {
      items = tessera.client().load(in).items();
    }
    var config =
        items.stream()
            .filter(ValidatingWebhookConfiguration.class::isInstance)
            .map(ValidatingWebhookConfiguration.class::cast)
            .findFirst()
            .orElseThrow();
    config
        .getWebhooks()
        .forEach(
            w ->
                w.setClientConfig(
                    new WebhookClientConfigBuilder()
                        .withUrl("https://127.0.0.1:" + port + WebhookServer.VALIDATE)
                        .withCaBundle(caBundle)
                        .build()));
    return tessera.client().resource(config).forceConflicts().serverSideApply();
  }

  private static int freePort() throws IOException {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (registered != null) {
        tessera.client().resource(registered).delete();
      }
      tessera.close();
    } finally {
      TestFiles.deleteTree(dir);
    }
  }
}
