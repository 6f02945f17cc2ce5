package dev.tessera.controller.admission;

import dev.tessera.api.config.FieldError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the CEL device selectors of an object and lints those that name the driver's domain (pure):
 * the warnings, each with the path of its expression in the object. Claims and templates have them
 * in each request ({@code exactly.selectors}, {@code firstAvailable[].selectors}), a DeviceClass in
 * {@code spec.selectors}. On an update only selectors that are new are linted: a claim's spec
 * cannot change, and a class's unchanged selectors were spoken of when written.
 */
public final class SelectorAdmission {
  /** Where each admitted kind keeps the {@code devices} with its requests. */
  private static final Map<String, List<String>> DEVICES =
      Map.of(
          "ResourceClaim", List.of("spec", "devices"),
          "ResourceClaimTemplate", List.of("spec", "spec", "devices"));

  private final SelectorLint lint;

  public SelectorAdmission(SelectorLint lint) {
    this.lint = lint;
  }

  /**
   * @param oldObject the object before an update, or null
   */
  public List<FieldError> warnings(String kind, Map<?, ?> object, Map<?, ?> oldObject) {
    Set<String> before = new HashSet<>();
    if (oldObject != null) {
      selectors(kind, oldObject).forEach(s -> before.add(s.expression()));
    }
    var warnings = new ArrayList<FieldError>();
    for (Selector selector : selectors(kind, object)) {
      if (!before.contains(selector.expression())) {
        lint.warnings(selector.expression())
            .forEach(message -> warnings.add(new FieldError(selector.path(), message)));
      }
    }
    return warnings;
  }

  private record Selector(String path, String expression) {}

  private static List<Selector> selectors(String kind, Map<?, ?> object) {
    var found = new ArrayList<Selector>();
    if (kind.equals("DeviceClass")) {
      if (object.get("spec") instanceof Map<?, ?> spec) {
        addSelectors(spec.get("selectors"), "spec.selectors", found);
      }
      return found;
    }
    List<String> fields = DEVICES.get(kind);
    if (fields == null) {
      return found;
    }
    Object value = object;
    for (String field : fields) {
      if (!(value instanceof Map<?, ?> map)) {
        return found;
      }
      value = map.get(field);
    }
    String devices = String.join(".", fields);
    if (!(value instanceof Map<?, ?> map) || !(map.get("requests") instanceof List<?> requests)) {
      return found;
    }
    for (int i = 0; i < requests.size(); i++) {
      if (!(requests.get(i) instanceof Map<?, ?> request)) {
        continue;
      }
      String path = devices + ".requests[" + i + "]";
      if (request.get("exactly") instanceof Map<?, ?> exactly) {
        addSelectors(exactly.get("selectors"), path + ".exactly.selectors", found);
      }
      if (request.get("firstAvailable") instanceof List<?> subrequests) {
        for (int k = 0; k < subrequests.size(); k++) {
          if (subrequests.get(k) instanceof Map<?, ?> subrequest) {
            addSelectors(
                subrequest.get("selectors"), path + ".firstAvailable[" + k + "].selectors", found);
          }
        }
      }
    }
    return found;
  }

  private static void addSelectors(Object selectors, String path, List<Selector> found) {
    if (!(selectors instanceof List<?> list)) {
      return;
    }
    for (int j = 0; j < list.size(); j++) {
      if (list.get(j) instanceof Map<?, ?> selector
          && selector.get("cel") instanceof Map<?, ?> cel
          && cel.get("expression") instanceof String expression) {
        found.add(new Selector(path + "[" + j + "].cel.expression", expression));
      }
    }
  }
}
