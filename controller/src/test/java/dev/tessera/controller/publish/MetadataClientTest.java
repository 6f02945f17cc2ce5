package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** Which of the metadata client's requests ask for metadata only, and in which form. */
class MetadataClientTest {
  private static final String ONE = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
  private static final String LIST =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
  private static final String SLICES = "https://api/apis/resource.k8s.io/v1/resourceslices";
  private static final String NODES = "https://api/api/v1/nodes";

  @Test
  void theInformersListAndWatchAskForMetadata() {
    assertThat(MetadataClient.accept("GET", URI.create(SLICES + "?limit=100"))).hasValue(LIST);
    assertThat(MetadataClient.accept("GET", URI.create(SLICES + "?resourceVersion=5&watch=true")))
        .hasValue(ONE);
    // "watch=true" must be a parameter of its own, not part of another's value.
    assertThat(MetadataClient.accept("GET", URI.create(SLICES + "?labelSelector=x%3Dwatch=true")))
        .hasValue(LIST);
  }

  @Test
  void aSliceReadCreatedOrReplacedIsAnsweredWithItsMetadata() {
    assertThat(MetadataClient.accept("GET", URI.create(SLICES + "/node-a-0"))).hasValue(ONE);
    assertThat(MetadataClient.accept("POST", URI.create(SLICES))).hasValue(ONE);
    assertThat(MetadataClient.accept("PUT", URI.create(SLICES + "/node-a-0"))).hasValue(ONE);
    // With the parameters fabric8 may add.
    assertThat(MetadataClient.accept("POST", URI.create(SLICES + "?dryRun=All"))).hasValue(ONE);
    assertThat(
            MetadataClient.accept(
                "PUT",
                URI.create(SLICES + "/node-a-0?fieldManager=tessera&fieldValidation=Strict")))
        .hasValue(ONE);
  }

  @Test
  void theNodesInformersListAndWatchAndANodesReadAskForMetadata() {
    assertThat(MetadataClient.accept("GET", URI.create(NODES + "?limit=100"))).hasValue(LIST);
    assertThat(MetadataClient.accept("GET", URI.create(NODES + "?resourceVersion=5&watch=true")))
        .hasValue(ONE);
    assertThat(MetadataClient.accept("GET", URI.create(NODES + "/node-a"))).hasValue(ONE);
    assertThat(
            MetadataClient.accept(
                "GET", URI.create("https://proxy/k8s/c-1" + NODES.substring(11) + "?limit=1")))
        .hasValue(LIST); // below a proxy's path
  }

  @Test
  void aNodesWritesAndSubresourcesAreLeftAlone() {
    assertThat(MetadataClient.accept("GET", URI.create(NODES + "/node-a/status"))).isEmpty();
    assertThat(MetadataClient.accept("GET", URI.create(NODES + "/node-a/proxy/metrics"))).isEmpty();
    assertThat(MetadataClient.accept("PATCH", URI.create(NODES + "/node-a"))).isEmpty();
    assertThat(MetadataClient.accept("PUT", URI.create(NODES + "/node-a"))).isEmpty();
    assertThat(MetadataClient.accept("POST", URI.create(NODES))).isEmpty();
    assertThat(MetadataClient.accept("DELETE", URI.create(NODES + "/node-a"))).isEmpty();
    assertThat(
            MetadataClient.accept(
                "GET", URI.create("https://api/apis/gpu.tessera.dev/v1/gpunodes?limit=100")))
        .isEmpty();
  }

  @Test
  void nothingElseIsChanged() {
    assertThat(MetadataClient.accept("DELETE", URI.create(SLICES + "/node-a-0"))).isEmpty();
    assertThat(MetadataClient.accept("DELETE", URI.create(SLICES))).isEmpty();
    assertThat(MetadataClient.accept("PATCH", URI.create(SLICES + "/node-a-0"))).isEmpty();
    assertThat(MetadataClient.accept("POST", URI.create(SLICES + "/node-a-0"))).isEmpty();
    assertThat(MetadataClient.accept("PUT", URI.create(SLICES + "/node-a-0/status"))).isEmpty();
    assertThat(MetadataClient.accept("GET", URI.create("https://api/api/v1/namespaces"))).isEmpty();
    assertThat(
            MetadataClient.accept(
                "GET", URI.create("https://api/apis/gpu.tessera.dev/v1/gpunodes/resourceslices")))
        .isEmpty(); // a GpuNode named "resourceslices"
    assertThat(
            MetadataClient.accept(
                "GET", URI.create("https://proxy/k8s/c-1" + SLICES.substring(11) + "?limit=1")))
        .hasValue(LIST); // below a proxy's path
  }
}
