package dev.tessera.plugin.k8s;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a GpuNode status write sends: the plugin's fields that changed since the status last
 * written, each whole, as it would have been sent among all of them (a merge patch replaces lists
 * whole and merges objects, so a field left out stays as the API server holds it). A prepare
 * changes the holders and the free counts only; the inventory (tens of KiB of JSON for 8 GPUs with
 * their MIG profiles) no longer rides along with each of them.
 */
final class GpuNodeStatusPatch {
  private GpuNodeStatusPatch() {}

  /**
   * @param written the fields last written, or null when nothing is known to be written (every
   *     field is sent)
   * @param now the fields as they are now
   */
  static Map<String, Object> between(Map<String, Object> written, Map<String, Object> now) {
    if (written == null) {
      return now;
    }
    var changed = new LinkedHashMap<String, Object>();
    now.forEach(
        (field, value) -> {
          if (!Objects.equals(value, written.get(field))) {
            changed.put(field, value);
          }
        });
    return changed;
  }
}
