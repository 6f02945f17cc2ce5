package dev.tessera.cli.why;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import java.util.List;
import java.util.Objects;

/**
 * A device's taints that keep a request off it: {@code NoSchedule} and {@code NoExecute} ones the
 * request's tolerations do not tolerate (Kubernetes' rules: {@code Exists} or {@code Equal} on the
 * key, an empty key with {@code Exists} tolerates all, an empty effect any effect).
 */
public final class DeviceTaints {
  private DeviceTaints() {}

  public static List<String> untolerated(Device device, List<DeviceToleration> tolerations) {
    if (device.getTaints() == null) {
      return List.of();
    }
    return device.getTaints().stream()
        .filter(t -> !"None".equals(t.getEffect()))
        .filter(t -> tolerations.stream().noneMatch(tol -> tolerates(tol, t)))
        .map(DeviceTaints::text)
        .toList();
  }

  public static String text(DeviceTaint taint) {
    return taint.getKey()
        + (taint.getValue() == null || taint.getValue().isEmpty() ? "" : "=" + taint.getValue())
        + ":"
        + taint.getEffect();
  }

  private static boolean tolerates(DeviceToleration toleration, DeviceTaint taint) {
    if (toleration.getEffect() != null
        && !toleration.getEffect().isEmpty()
        && !toleration.getEffect().equals(taint.getEffect())) {
      return false;
    }
    boolean exists = "Exists".equals(toleration.getOperator());
    if (toleration.getKey() == null || toleration.getKey().isEmpty()) {
      return exists;
    }
    if (!toleration.getKey().equals(taint.getKey())) {
      return false;
    }
    return exists
        || Objects.equals(nullToEmpty(toleration.getValue()), nullToEmpty(taint.getValue()));
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
