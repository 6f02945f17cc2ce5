package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class MergePatchingCrudDispatcherTest {
  private final MergePatchingCrudDispatcher dispatcher = new MergePatchingCrudDispatcher();

  private static JsonNode json(String text) {
    return Serialization.jsonMapper().readTree(text);
  }

  @Test
  void anArrayInThePatchReplacesTheStoredOne() throws Exception {
    JsonNode stored = json("{\"status\":{\"inventory\":{\"gpus\":[1,2]},\"gpusFree\":2}}");

    JsonNode merged =
        dispatcher.merge(stored, "{\"status\":{\"inventory\":{\"gpus\":[3,4]},\"gpusFree\":1}}");

    assertThat(merged)
        .isEqualTo(json("{\"status\":{\"inventory\":{\"gpus\":[3,4]},\"gpusFree\":1}}"));
    assertThat(stored.at("/status/inventory/gpus").size()).isEqualTo(2);
  }

  @Test
  void nullRemovesAFieldAndOtherFieldsStay() throws Exception {
    JsonNode stored = json("{\"metadata\":{\"name\":\"n\"},\"status\":{\"a\":1,\"b\":{\"c\":2}}}");

    JsonNode merged = dispatcher.merge(stored, "{\"status\":{\"a\":null,\"b\":{\"d\":3}}}");

    assertThat(merged)
        .isEqualTo(json("{\"metadata\":{\"name\":\"n\"},\"status\":{\"b\":{\"c\":2,\"d\":3}}}"));
  }

  @Test
  void aPatchThatIsNoObjectReplacesWhatIsThere() throws Exception {
    JsonNode merged =
        dispatcher.merge(json("{\"spec\":{\"x\":{\"y\":1}}}"), "{\"spec\":{\"x\":7}}");

    assertThat(merged).isEqualTo(json("{\"spec\":{\"x\":7}}"));
  }
}
