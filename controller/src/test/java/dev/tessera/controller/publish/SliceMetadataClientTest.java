package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** Which of the metadata client's requests ask for slices' metadata, and in which form. */
class SliceMetadataClientTest {
  private static final String ONE = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
  private static final String LIST =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
  private static final String SLICES = "https://api/apis/resource.k8s.io/v1/resourceslices";

  @Test
  void theInformersListAndWatchAskForMetadata() {
    assertThat(SliceMetadataClient.accept("GET", URI.create(SLICES + "?limit=100"))).hasValue(LIST);
    assertThat(
            SliceMetadataClient.accept("GET", URI.create(SLICES + "?resourceVersion=5&watch=true")))
        .hasValue(ONE);
    // "watch=true" must be a parameter of its own, not part of another's value.
    assertThat(
            SliceMetadataClient.accept("GET", URI.create(SLICES + "?labelSelector=x%3Dwatch=true")))
        .hasValue(LIST);
  }

  @Test
  void aSliceReadCreatedOrReplacedIsAnsweredWithItsMetadata() {
    assertThat(SliceMetadataClient.accept("GET", URI.create(SLICES + "/node-a-0"))).hasValue(ONE);
    assertThat(SliceMetadataClient.accept("POST", URI.create(SLICES))).hasValue(ONE);
    assertThat(SliceMetadataClient.accept("PUT", URI.create(SLICES + "/node-a-0"))).hasValue(ONE);
    // With the parameters fabric8 may add.
    assertThat(SliceMetadataClient.accept("POST", URI.create(SLICES + "?dryRun=All")))
        .hasValue(ONE);
    assertThat(
            SliceMetadataClient.accept(
                "PUT",
                URI.create(SLICES + "/node-a-0?fieldManager=tessera&fieldValidation=Strict")))
        .hasValue(ONE);
  }

  @Test
  void nothingElseIsChanged() {
    assertThat(SliceMetadataClient.accept("DELETE", URI.create(SLICES + "/node-a-0"))).isEmpty();
    assertThat(SliceMetadataClient.accept("DELETE", URI.create(SLICES))).isEmpty();
    assertThat(SliceMetadataClient.accept("PATCH", URI.create(SLICES + "/node-a-0"))).isEmpty();
    assertThat(SliceMetadataClient.accept("POST", URI.create(SLICES + "/node-a-0"))).isEmpty();
    assertThat(SliceMetadataClient.accept("PUT", URI.create(SLICES + "/node-a-0/status")))
        .isEmpty();
    assertThat(SliceMetadataClient.accept("GET", URI.create("https://api/api/v1/nodes"))).isEmpty();
    assertThat(
            SliceMetadataClient.accept(
                "GET", URI.create("https://api/apis/gpu.tessera.dev/v1/gpunodes/resourceslices")))
        .isEmpty(); // a GpuNode named "resourceslices"
    assertThat(
            SliceMetadataClient.accept(
                "GET", URI.create("https://proxy/k8s/c-1" + SLICES.substring(11) + "?limit=1")))
        .hasValue(LIST); // below a proxy's path
  }
}
