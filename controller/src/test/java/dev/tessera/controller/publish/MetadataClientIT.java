package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The slice writer through the metadata client, against fabric8's mock web server answering as a
 * real API server does to {@code as=PartialObjectMetadata} (checked on kube-apiserver 1.37: a
 * create's and a replace's answer is the slice's metadata; a refusal is a {@code Status}): the
 * writes ask for metadata, their answers are taken, and a conflict is read again as metadata and
 * skipped when the slice already says what was rendered.
 */
class MetadataClientIT {
  private static final String ONE = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private volatile ResourceSlice stored;
  private final RecordingApiServer server = new RecordingApiServer(this::answer);

  /** As the API server answers a slice's create, replace and read asked as metadata. */
  private MockResponse answer(RecordedRequest request) {
    return switch (request.getMethod()) {
      case "POST" -> {
        if (stored != null) {
          yield new MockResponse().setResponseCode(409).setBody(ALREADY_EXISTS);
        }
        stored = slice();
        yield new MockResponse().setResponseCode(201).setBody(metadataOf(stored, "7"));
      }
      case "PUT" -> new MockResponse().setResponseCode(200).setBody(metadataOf(stored, "8"));
      default -> new MockResponse().setResponseCode(200).setBody(metadataOf(stored, "7"));
    };
  }

  private static final String ALREADY_EXISTS =
      """
      {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
      "message":"resourceslices.resource.k8s.io \\"node-a-gpu.tessera.dev-00000\\" already exists",\
      "reason":"AlreadyExists","code":409}""";

  @AfterEach
  void close() {
    server.close();
  }

  private static ResourceSlice slice() {
    try {
      var inventory = SimulatedInventories.node("H100-SXM5-80GB", 2);
      var writes =
          new PoolReconciler(new PoolSlices("gpu.tessera.dev"))
              .reconcile(
                  "node-a",
                  "uid-a",
                  new SliceRenderer().render(inventory, Offering.EXCLUSIVE, NodeHealth.ALL_HEALTHY),
                  List.of());
      return ((SliceWrite.Create) writes.get(0)).slice();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The slice's metadata as the API server answers it: no spec, its annotations. */
  private static String metadataOf(ResourceSlice slice, String version) {
    var annotations = new StringBuilder();
    slice
        .getMetadata()
        .getAnnotations()
        .forEach(
            (k, v) ->
                annotations
                    .append(annotations.isEmpty() ? "" : ",")
                    .append('"')
                    .append(k)
                    .append("\":\"")
                    .append(v)
                    .append('"'));
    return """
        {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"%s",\
        "resourceVersion":"%s","annotations":{%s}}}"""
        .formatted(slice.getMetadata().getName(), version, annotations);
  }

  @Test
  void writesAskForMetadataAndTakeItsAnswers() throws Exception {
    try (var client = server.createClient();
        var metadata = TestNodePools.metadataClient(client)) {
      var writer = new SliceWriter(metadata.client(), metrics);
      ResourceSlice slice = slice();

      writer.write("node-a", List.of(new SliceWrite.Create(slice)));
      // Again from a cache that does not show it: a conflict, read again (as metadata), and found
      // to say what was rendered already, so nothing is refused.
      writer.write("node-a", List.of(new SliceWrite.Create(slice())));
      var replaced = slice();
      replaced.getMetadata().setResourceVersion("7");
      writer.write("node-a", List.of(new SliceWrite.Update(replaced)));
    }

    assertThat(metrics.counter("tessera.controller.slice.writes", "operation", "create").count())
        .isEqualTo(1);
    assertThat(
            metrics
                .counter("tessera.controller.slice.write.conflicts", "operation", "create")
                .count())
        .isEqualTo(1);
    assertThat(metrics.counter("tessera.controller.slice.writes", "operation", "update").count())
        .isEqualTo(1);
    var requests = server.requests();
    assertThat(requests)
        .extracting(RecordedRequest::getMethod)
        .containsExactly("POST", "POST", "GET", "PUT");
    assertThat(requests).allSatisfy(r -> assertThat(r.getHeader("Accept")).isEqualTo(ONE));
    // What is sent is the whole slice, as rendered.
    assertThat(requests.get(0).getBody().readUtf8()).contains("\"devices\"");
  }
}
