package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Selector linting on the real cluster: a claim whose CEL selector mistypes {@code productName} is
 * admitted, and the API server hands back the webhook's warning naming the right name — what {@code
 * kubectl apply} prints as {@code Warning: ...}. fabric8 has no warning handler: the {@code
 * Warning} response headers are read by an interceptor of the client.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class SelectorLintE2E {
  private static final String NAMESPACE = "default";
  private static final String TYPO_WARNING =
      "spec.devices.requests[0].exactly.selectors[0].cel.expression: gpu.tessera.dev publishes"
          + " no attribute \"prodcutName\"; did you mean \"productName\"?";
  private static TesseraWithWebhook withWebhook;
  private static TesseraOnNode tessera;
  private static KubernetesClient client;
  private static final List<String> warnings = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    withWebhook = TesseraWithWebhook.start(Clusters.require());
    tessera = withWebhook.tessera();
    client =
        new KubernetesClientBuilder()
            .withConfig(tessera.client().getConfiguration())
            .withHttpClientBuilderConsumer(
                http -> http.addOrReplaceInterceptor("warnings", new WarningHeaders()))
            .build();
  }

  /** Collects the text of every {@code Warning: 299 - "<text>"} header the API server sends. */
  private static final class WarningHeaders implements Interceptor {
    @Override
    public void after(
        HttpRequest request,
        HttpResponse<?> response,
        AsyncBody.Consumer<List<ByteBuffer>> consumer) {
      for (String header : response.headers("Warning")) {
        warnings.add(text(header));
      }
    }
  }

  /** {@code 299 - "a \"quoted\" text"} is {@code a "quoted" text} (RFC 7234 warn-text). */
  static String text(String header) {
    int open = header.indexOf('"');
    int close = header.lastIndexOf('"');
    if (open < 0 || close <= open) {
      return header;
    }
    return header.substring(open + 1, close).replace("\\\"", "\"").replace("\\\\", "\\");
  }

  private static ResourceClaim claim(String name, String selector) {
    return new ResourceClaimBuilder()
        .withMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build())
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("gpu")
        .withNewExactly()
        .withDeviceClassName("gpu.tessera.dev")
        .addNewSelector()
        .withNewCel(selector)
        .endSelector()
        .endExactly()
        .endRequest()
        .endDevices()
        .endSpec()
        .build();
  }

  @AfterEach
  void deleteClaims() {
    for (String name : List.of("typo", "good")) {
      client.resources(ResourceClaim.class).inNamespace(NAMESPACE).withName(name).delete();
    }
    client.resources(DeviceClass.class).withName("tessera-typo").delete();
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    if (withWebhook != null) {
      withWebhook.close();
    }
  }

  @Test
  void aMistypedAttributeIsAdmittedWithAWarningNamingTheRightOne() {
    ResourceClaim typo =
        claim("typo", "device.attributes[\"gpu.tessera.dev\"].prodcutName == \"NVIDIA H100\"");
    // The API server picks up a new webhook configuration within a moment: a dry run goes through
    // the webhooks without storing anything.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              warnings.clear();
              client.resource(typo).dryRun().create();
              return warnings.contains(TYPO_WARNING);
            });

    warnings.clear();
    client.resource(typo).create();
    System.out.printf("--- claim typo admitted with warnings: %s%n", warnings);
    assertThat(warnings).containsExactly(TYPO_WARNING);
    assertThat(client.resources(ResourceClaim.class).inNamespace(NAMESPACE).withName("typo").get())
        .isNotNull();

    warnings.clear();
    client
        .resource(
            claim("good", "device.attributes[\"gpu.tessera.dev\"].productName == \"NVIDIA H100\""))
        .create();
    assertThat(warnings).isEmpty();
  }

  /**
   * A DeviceClass with a mistyped capacity name: admitted, with the nearest name. (A type mismatch
   * such as memory compared with a number never reaches the webhook: the API server compiles the
   * selector against its own types first and refuses it, as this cluster showed.)
   */
  @Test
  void aDeviceClassWithAMistypedCapacityIsAdmittedWithAWarning() {
    DeviceClass deviceClass =
        new DeviceClassBuilder()
            .withNewMetadata()
            .withName("tessera-typo")
            .endMetadata()
            .withNewSpec()
            .addNewSelector()
            .withNewCel("device.driver == \"gpu.tessera.dev\"")
            .endSelector()
            .addNewSelector()
            .withNewCel(
                "device.capacity[\"gpu.tessera.dev\"].memroy.compareTo(quantity(\"40Gi\")) >= 0")
            .endSelector()
            .endSpec()
            .build();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              warnings.clear();
              client.resource(deviceClass).dryRun().create();
              return !warnings.isEmpty();
            });
    assertThat(warnings)
        .singleElement()
        .asString()
        .startsWith(
            "spec.selectors[1].cel.expression: gpu.tessera.dev publishes no capacity \"memroy\";"
                + " did you mean \"memory\"?");
  }
}
