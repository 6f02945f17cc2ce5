package dev.tessera.controller.admission;

import dev.tessera.api.config.AdminAccessRule;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.config.FieldError;
import dev.tessera.api.config.InvalidConfigException;
import dev.tessera.api.config.OpaqueConfigDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides whether an object's opaque configs for our driver may be admitted (pure): each one is
 * decoded strictly, every error naming its field path in the object. Configs for other drivers and
 * entries without an opaque config are not ours to judge and pass untouched. In a claim (or a
 * template's claim), a config of ours that asks for sharing may not apply to a request with {@code
 * adminAccess}: such devices are handed over as they are ({@link AdminAccessRule}).
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
    Object parent = null;
    String path = "";
    for (String field : fields) {
      if (!(value instanceof Map<?, ?> map)) {
        // The API server has checked the schema before us; this is a request built by hand.
        return List.of(new FieldError(path, "must be an object"));
      }
      parent = map;
      value = map.get(field);
      path = path.isEmpty() ? field : path + "." + field;
      if (value == null) {
        return List.of();
      }
    }
    if (!(value instanceof List<?> configs)) {
      return List.of(new FieldError(path, "must be an array"));
    }
    // A DeviceClass has no requests; its configs apply to admin requests too, but a class is
    // shared by claims with and without admin access, so only the node plugin can judge them.
    List<String> admins = kind.equals("DeviceClass") ? List.of() : adminRequests(parent);
    for (int i = 0; i < configs.size(); i++) {
      String entry = path + "[" + i + "]";
      if (configs.get(i) instanceof Map<?, ?> config
          && config.get("opaque") instanceof Map<?, ?> opaque
          && driverName.equals(opaque.get("driver"))) {
        String parameters = entry + ".opaque.parameters";
        try {
          DeviceConfig decoded = decoder.decode(opaque.get("parameters"), parameters);
          for (String admin : admins) {
            if (appliesTo(config.get("requests"), admin)) {
              AdminAccessRule.check(decoded, parameters, admin).ifPresent(errors::add);
              break;
            }
          }
        } catch (InvalidConfigException e) {
          errors.addAll(e.errors());
        }
      }
    }
    return errors;
  }

  /**
   * The names of the requests with {@code exactly.adminAccess: true} in a claim's {@code devices}.
   * Only an exact request can have it: the API's subrequests of {@code firstAvailable} have no
   * {@code adminAccess} field (the API server drops it before we see the object).
   */
  private static List<String> adminRequests(Object devices) {
    if (!(devices instanceof Map<?, ?> map) || !(map.get("requests") instanceof List<?> requests)) {
      return List.of();
    }
    var names = new ArrayList<String>();
    for (Object request : requests) {
      if (request instanceof Map<?, ?> r
          && r.get("name") instanceof String name
          && r.get("exactly") instanceof Map<?, ?> exactly
          && Boolean.TRUE.equals(exactly.get("adminAccess"))) {
        names.add(name);
      }
    }
    return names;
  }

  /** A config applies to the requests it names, or to all when it names none. */
  private static boolean appliesTo(Object requests, String request) {
    return !(requests instanceof List<?> named) || named.isEmpty() || named.contains(request);
  }
}
