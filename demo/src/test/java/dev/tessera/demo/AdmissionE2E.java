package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tessera.demo.report.Scenario;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario 7 on the real cluster: the API server calls the controller's webhook, bad Tessera
 * configs are refused naming the field, a good claim is admitted and its pod runs. The webhook is
 * the chart's or the shipped manifest's ({@link TesseraWithWebhook}).
 */
@ExtendWith(TesseraLogsOnFailure.class)
class AdmissionE2E {
  private static final String SCENARIO = "07-invalid-config-rejected";
  private static final String DENIED = "denied the request";
  private static TesseraWithWebhook withWebhook;
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    withWebhook = TesseraWithWebhook.start(Clusters.require());
    tessera = withWebhook.tessera();
  }

  @AfterEach
  void deleteScenario() throws Exception {
    tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
  }

  @AfterAll
  static void stop() throws Exception {
    if (withWebhook != null) {
      withWebhook.close();
    }
  }

  @Test
  @Scenario("07-invalid-config-rejected")
  void badConfigsAreRefusedNamingTheFieldAndAGoodClaimRuns() throws Exception {
    System.out.printf("%n== scenario %s%n", SCENARIO);
    List<HasMetadata> items;
    try (var in = Files.newInputStream(tessera.scenario(SCENARIO))) {
      items = tessera.client().load(in).items();
    }
    var client = tessera.client();
    // The API server picks up a new webhook configuration within a moment: wait until it is in
    // force (a dry run goes through the webhooks without storing anything).
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> refusal(() -> client.resource(items.get(0)).dryRun().create()) != null);

    assertRefused(
        items.get(0),
        "claims.gpu.tessera.dev",
        "spec.devices.config[0].opaque.parameters.sharing.strategy: unsupported value"
            + " \"Timeslicing\"; allowed: Exclusive, TimeSlicing, MPS");
    assertRefused(
        items.get(1),
        "claimtemplates.gpu.tessera.dev",
        "spec.spec.devices.config[0].opaque.parameters.sharing.mpsConfig: only allowed when"
            + " strategy is MPS");
    assertRefused(
        items.get(2),
        "deviceclasses.gpu.tessera.dev",
        "spec.config[0].opaque.parameters.sharing.timeSlicingConfig: not supported for MIG"
            + " devices");

    // The good claim (with another driver's config beside ours) and its pod are admitted and run.
    items.subList(3, items.size()).forEach(item -> client.resource(item).create());
    List<String> gpus = TesseraOnNode.gpus(tessera.saw("admitted-pod", null));
    assertThat(gpus).hasSize(1);
    tessera.assertClaimsReady(1);
  }

  /** Refused by the named webhook (one per resource, see the manifest), naming the field. */
  private static void assertRefused(HasMetadata item, String webhook, String field) {
    assertThatThrownBy(() -> tessera.client().resource(item).create())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(
            e -> {
              System.out.printf(
                  "--- %s %s refused: %s%n",
                  item.getKind(), item.getMetadata().getName(), e.getMessage());
              assertThat(e.getMessage())
                  .contains("admission webhook \"" + webhook + "\" " + DENIED, field);
            });
  }

  /** The message of the webhook's refusal, or null when the write went through. */
  private static String refusal(Runnable write) {
    try {
      write.run();
      return null;
    } catch (KubernetesClientException e) {
      if (e.getMessage() != null && e.getMessage().contains(DENIED)) {
        return e.getMessage();
      }
      throw e;
    }
  }
}
