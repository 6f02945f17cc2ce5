package dev.tessera.plugin.it;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
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
 * the node's GPUs (and a long benchmark ran the plugin out of heap reading it). And an update of a
 * status that names a resourceVersion other than the stored one is refused with 409 Conflict, as
 * the API server refuses it: fabric8's own checks the version of an object's own updates only, and
 * wrote a stale status over what another writer had changed.
 */
final class MergePatchingCrudDispatcher extends KubernetesCrudDispatcher {

  @Override
  public MockResponse handleUpdate(RecordedRequest request) {
    String path = request.getPath();
    String object = path.endsWith("/status") ? path.substring(0, path.length() - 7) : path;
    try {
      // getBytes, not getUtf8Body: that one consumes the body fabric8's handling reads after us.
      String sent = resourceVersion(request.getBody().getBytes());
      MockResponse stored = handleGet(object);
      if (!sent.isEmpty() && stored.code() == 200) {
        String current = resourceVersion(stored.getBody().getBytes());
        if (!sent.equals(current)) {
          return new MockResponse()
              .setResponseCode(409)
              .setBody(
                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                      + "\"reason\":\"Conflict\",\"code\":409,\"message\":\"the object has"
                      + " been modified; please apply your changes to the latest version and try"
                      + " again\"}");
        }
      }
    } catch (JacksonException e) {
      // Not JSON: fabric8's own handling answers it.
    }
    return super.handleUpdate(request);
  }

  private static String resourceVersion(byte[] json) {
    return Serialization.jsonMapper()
        .readTree(json)
        .path("metadata")
        .path("resourceVersion")
        .asString("");
  }

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
