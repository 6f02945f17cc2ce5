package dev.tessera.cli.nodes;

import dev.tessera.api.DeviceAttributeNames;
import dev.tessera.cel.Quantity;
import dev.tessera.cli.core.DeviceUse;
import dev.tessera.cli.core.Inventory;
import dev.tessera.cli.core.PublishedDevice;
import dev.tessera.cli.core.Quantities;
import dev.tessera.cli.core.Snapshot;
import dev.tessera.cli.why.DeviceTaints;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rows of {@code kubectl tessera nodes} (pure): per node and device its type ({@code gpu},
 * {@code mig}, {@code shared}), profile (MIG) or product, memory used of total, health (the
 * GpuNode's problems, a MIG device's parent's too), taints, and the claims and pods holding it.
 * Memory used is the whole device when a claim holds it, the consumed capacity of the claims on a
 * shared GPU, and on a mig-dynamic whole GPU the memory its allocated placements take. A
 * mig-dynamic placement no claim holds is only a possibility, not a device: it is listed with
 * {@code all}.
 */
public final class NodeRows {
  private static final Pattern MIG_NAME = Pattern.compile("(gpu-\\d+)-mig-.*");

  private NodeRows() {}

  public static List<DeviceRow> of(Snapshot snapshot, boolean all) {
    var inventory = new Inventory(snapshot);
    var rows = new ArrayList<DeviceRow>();
    inventory
        .byNode()
        .forEach(
            (node, devices) -> {
              for (PublishedDevice device : devices) {
                List<DeviceUse> uses = inventory.usesOf(device);
                if (!all && uses.isEmpty() && isPlacement(device.device())) {
                  continue;
                }
                rows.add(row(snapshot, inventory, device, uses));
              }
            });
    return rows;
  }

  private static DeviceRow row(
      Snapshot snapshot, Inventory inventory, PublishedDevice device, List<DeviceUse> uses) {
    Device d = device.device();
    String type = device.shared() ? "shared" : attribute(d, DeviceAttributeNames.TYPE);
    String profile =
        "mig".equals(attribute(d, DeviceAttributeNames.TYPE))
            ? attribute(d, DeviceAttributeNames.PROFILE)
            : attribute(d, DeviceAttributeNames.PRODUCT_NAME);
    var claims = new LinkedHashSet<String>();
    var pods = new LinkedHashSet<String>();
    for (DeviceUse use : uses) {
      claims.add(use.claim().toString());
      pods.addAll(use.pods());
    }
    List<String> problems = problems(snapshot, device);
    List<String> taints =
        d.getTaints() == null ? List.of() : d.getTaints().stream().map(DeviceTaints::text).toList();
    return new DeviceRow(
        device.node(),
        device.name(),
        type.isEmpty() ? "-" : type,
        profile.isEmpty() ? "-" : profile,
        memory(inventory, device, uses),
        problems.isEmpty() ? "ok" : String.join(",", problems),
        taints,
        List.copyOf(claims),
        List.copyOf(pods));
  }

  private static String memory(Inventory inventory, PublishedDevice device, List<DeviceUse> uses) {
    Map<String, DeviceCapacity> capacity = device.device().getCapacity();
    if (capacity == null || !capacity.containsKey(DeviceAttributeNames.MEMORY)) {
      return "-";
    }
    Quantity total = Quantities.of(capacity.get(DeviceAttributeNames.MEMORY).getValue());
    Quantity used = Quantity.of(0);
    if (device.shared()) {
      for (DeviceUse use : uses) {
        used = used.add(use.consumed().getOrDefault(DeviceAttributeNames.MEMORY, Quantity.of(0)));
      }
    } else if (!uses.isEmpty()) {
      used = total;
    } else if (device.device().getConsumesCounters() != null) {
      for (DeviceCounterConsumption c : device.device().getConsumesCounters()) {
        used =
            used.add(
                inventory
                    .counterUse(device.pool(), c.getCounterSet())
                    .usedOf(DeviceAttributeNames.MEMORY));
      }
    }
    return used.human() + "/" + total.human();
  }

  private static List<String> problems(Snapshot snapshot, PublishedDevice device) {
    Map<String, List<String>> byDevice = snapshot.health().getOrDefault(device.node(), Map.of());
    var problems = new ArrayList<>(byDevice.getOrDefault(device.name(), List.of()));
    Matcher mig = MIG_NAME.matcher(device.name());
    if (mig.matches()) {
      problems.addAll(byDevice.getOrDefault(mig.group(1), List.of()));
    }
    return problems;
  }

  /** A MIG device that consumes counters: a mig-dynamic placement, made only when allocated. */
  private static boolean isPlacement(Device device) {
    return "mig".equals(attribute(device, DeviceAttributeNames.TYPE))
        && device.getConsumesCounters() != null
        && !device.getConsumesCounters().isEmpty();
  }

  private static String attribute(Device device, String name) {
    if (device.getAttributes() == null) {
      return "";
    }
    DeviceAttribute value = device.getAttributes().get(name);
    return value == null || value.getString() == null ? "" : value.getString();
  }
}
