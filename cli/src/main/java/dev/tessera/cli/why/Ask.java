package dev.tessera.cli.why;

import dev.tessera.cel.Quantity;
import dev.tessera.cli.core.Quantities;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequirements;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One way a request can be served: an {@code exactly} request, or one {@code firstAvailable}
 * alternative; both carry the same fields, read once here.
 *
 * @param count how many devices; -1 for allocationMode All
 */
record Ask(
    String name,
    String deviceClass,
    List<String> selectors,
    long count,
    List<DeviceToleration> tolerations,
    Map<String, Quantity> capacity,
    boolean adminAccess) {
  Ask {
    selectors = List.copyOf(selectors);
    tolerations = List.copyOf(tolerations);
    capacity = Map.copyOf(capacity);
  }

  static List<Ask> of(DeviceRequest request) {
    var asks = new ArrayList<Ask>();
    ExactDeviceRequest exactly = request.getExactly();
    if (exactly != null) {
      asks.add(
          new Ask(
              request.getName(),
              exactly.getDeviceClassName(),
              expressions(exactly.getSelectors()),
              count(exactly.getAllocationMode(), exactly.getCount()),
              list(exactly.getTolerations()),
              capacity(exactly.getCapacity()),
              Boolean.TRUE.equals(exactly.getAdminAccess())));
    }
    if (request.getFirstAvailable() != null) {
      for (DeviceSubRequest sub : request.getFirstAvailable()) {
        asks.add(
            new Ask(
                request.getName() + "/" + sub.getName(),
                sub.getDeviceClassName(),
                expressions(sub.getSelectors()),
                count(sub.getAllocationMode(), sub.getCount()),
                list(sub.getTolerations()),
                capacity(sub.getCapacity()),
                false));
      }
    }
    return asks;
  }

  private static long count(String mode, Long count) {
    if ("All".equals(mode)) {
      return -1;
    }
    return count == null ? 1 : count;
  }

  private static List<String> expressions(List<DeviceSelector> selectors) {
    return list(selectors).stream()
        .filter(s -> s.getCel() != null)
        .map(s -> s.getCel().getExpression())
        .toList();
  }

  private static Map<String, Quantity> capacity(CapacityRequirements requirements) {
    var capacity = new LinkedHashMap<String, Quantity>();
    if (requirements != null && requirements.getRequests() != null) {
      requirements.getRequests().forEach((n, q) -> capacity.put(n, Quantities.of(q)));
    }
    return capacity;
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
