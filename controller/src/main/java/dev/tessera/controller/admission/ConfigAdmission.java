package dev.tessera.controller.admission;

import dev.tessera.api.config.FieldError;
import dev.tessera.api.config.InvalidConfigException;
import dev.tessera.api.config.OpaqueConfigDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides whether an object's opaque configs for our driver may be admitted (pure): each one is
 * decoded strictly, every error naming its field path in the object. Configs for other drivers and
 * entries without an opaque config are not ours to judge and pass untouched.
 */
public final class ConfigAdmission {
  /** Where each admitted kind keeps its list of device configs. */
  private static final Map<String, List<String>> CONFIG_LISTS =
      Map.of(
          "ResourceClaim", List.of("spec", "devices", "config"),
          "ResourceClaimTemplate", List.of("spec", "spec", "devices", "config"),
          "DeviceClass", List.of("spec", "config"));

  private final String driverName;
  private final OpaqueConfigDecoder decoder;

  public ConfigAdmission(String driverName, OpaqueConfigDecoder decoder) {
    this.driverName = driverName;
    this.decoder = decoder;
  }

  /**
   * Every reason to refuse the object; empty when it may be admitted.
   *
   * @param kind the object's kind; kinds without device configs have nothing to refuse
   * @param object the object as a JSON tree (maps, lists, strings, numbers, booleans)
   */
  public List<FieldError> errors(String kind, Map<String, Object> object) {
    List<String> fields = CONFIG_LISTS.get(kind);
    if (fields == null) {
      return List.of();
    }
    var errors = new ArrayList<FieldError>();
    Object value = object;
    String path = "";
    for (String field : fields) {
      if (!(value instanceof Map<?, ?> map)) {
        // The API server has checked the schema before us; this is a request built by hand.
        return List.of(new FieldError(path, "must be an object"));
      }
      value = map.get(field);
      path = path.isEmpty() ? field : path + "." + field;
      if (value == null) {
        return List.of();
      }
    }
    if (!(value instanceof List<?> configs)) {
      return List.of(new FieldError(path, "must be an array"));
    }
    for (int i = 0; i < configs.size(); i++) {
      String entry = path + "[" + i + "]";
      if (configs.get(i) instanceof Map<?, ?> config
          && config.get("opaque") instanceof Map<?, ?> opaque
          && driverName.equals(opaque.get("driver"))) {
        try {
          decoder.decode(opaque.get("parameters"), entry + ".opaque.parameters");
        } catch (InvalidConfigException e) {
          errors.addAll(e.errors());
        }
      }
    }
    return errors;
  }
}
