package dev.tessera.plugin.it;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * fabric8's CRUD dispatcher with JSON merge patches applied as the API server applies them (RFC
 * 7386): an array in the patch replaces the stored one. fabric8's own merge reads the patch "for
 * updating", which appends arrays, so every merge patch of a GpuNode's status grew its inventory by
 * the node's GPUs (and a long benchmark ran the plugin out of heap reading it).
 */
final class MergePatchingCrudDispatcher extends KubernetesCrudDispatcher {

  @Override
  public JsonNode merge(JsonNode existing, String patch) throws KubernetesCrudDispatcherException {
    JsonNode parsed;
    try {
      parsed = Serialization.jsonMapper().readTree(patch);
    } catch (JacksonException e) {
      throw new KubernetesCrudDispatcherException(e.getMessage(), 422);
    }
    return mergePatch(existing.deepCopy(), parsed);
  }

  /** RFC 7386, section 2: objects merge field by field, null removes, anything else replaces. */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    ObjectNode result =
        target != null && target.isObject()
            ? (ObjectNode) target
            : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> field : List.copyOf(patch.properties())) {
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), mergePatch(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }
}
