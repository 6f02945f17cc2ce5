package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The metadata-only slice and Node informers against fabric8's mock web server answering as a real
 * API server does ({@code as=PartialObjectMetadata}: an empty list's {@code "items": null}, events
 * without a spec or status): their list and watch ask for metadata, they sync on an empty list, and
 * the object of an event is cached with its metadata and no spec.
 */
class MetadataInformersIT {
  private static final String EVENT =
      """
      {"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",\
      "metadata":{"name":"node-a-gpu.tessera.dev-00000","resourceVersion":"6",\
      "annotations":{"gpu.tessera.dev/pool":"node-a","gpu.tessera.dev/pool-generation":"2"}}}}
      """;

  private static final String NODE_EVENT =
      """
      {"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",\
      "metadata":{"name":"node-a","uid":"uid-a","resourceVersion":"6",\
      "labels":{"gpu.tessera.dev/offering":"shared"}}}}
      """;

  private final RecordingApiServer server =
      new RecordingApiServer(
          request -> {
            if (request.getPath().contains("watch=true")) {
              return new MockResponse()
                  .setResponseCode(200)
                  .setBody(request.getPath().startsWith("/api/v1/nodes") ? NODE_EVENT : EVENT);
            }
            return new MockResponse()
                .setResponseCode(200)
                .setBody(
                    """
                    {"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",\
                    "metadata":{"resourceVersion":"5"},"items":null}""");
          });

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void itListsAndWatchesMetadataAndCachesSlicesWithoutASpec() throws Exception {
    try (var client = server.createClient();
        var metadata = TestNodePools.metadataClient(client)) {
      var informer = new MetadataInformers(metadata).slicesOf("gpu.tessera.dev", 100);
      informer.start().toCompletableFuture().get();

      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (informer.getStore().list().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(informer.getStore().list()).as("the watch's event cached").hasSize(1);
      var slice = informer.getStore().list().get(0);
      assertThat(slice.getSpec()).isNull();
      assertThat(SlicePool.name(slice)).isEqualTo("node-a");
      assertThat(SlicePool.generation(slice)).hasValue(2);
      informer.stop();
    }

    var list =
        server.requests().stream().filter(r -> !r.getPath().contains("watch=true")).findFirst();
    var watch =
        server.requests().stream().filter(r -> r.getPath().contains("watch=true")).findFirst();
    assertThat(list.orElseThrow().getPath())
        .contains("fieldSelector=spec.driver%3Dgpu.tessera.dev");
    assertThat(list.orElseThrow().getHeader("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assertThat(watch.orElseThrow().getHeader("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
  }

  @Test
  void itListsAndWatchesNodesMetadataAndCachesTheirLabels() throws Exception {
    try (var client = server.createClient();
        var metadata = TestNodePools.metadataClient(client)) {
      var informer = new MetadataInformers(metadata).nodes(100);
      informer.start().toCompletableFuture().get();

      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (informer.getStore().list().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(informer.getStore().list()).as("the watch's event cached").hasSize(1);
      var node = informer.getStore().list().get(0);
      assertThat(node.getStatus()).isNull();
      assertThat(node.getMetadata().getUid()).isEqualTo("uid-a");
      assertThat(node.getMetadata().getLabels())
          .containsEntry("gpu.tessera.dev/offering", "shared");
      informer.stop();
    }

    var list =
        server.requests().stream().filter(r -> !r.getPath().contains("watch=true")).findFirst();
    var watch =
        server.requests().stream().filter(r -> r.getPath().contains("watch=true")).findFirst();
    assertThat(list.orElseThrow().getPath()).startsWith("/api/v1/nodes?").contains("limit=100");
    assertThat(list.orElseThrow().getHeader("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assertThat(watch.orElseThrow().getHeader("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
  }
}
