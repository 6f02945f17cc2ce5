package dev.tessera.cli;

import dev.tessera.api.DriverNames;
import dev.tessera.cel.CelDevice;
import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cel.Quantity;
import dev.tessera.cel.Semver;
import java.util.Map;

/**
 * A {@link DeviceSelectors} that has compiled and run one selector of each kind a DeviceClass or a
 * claim has (a string attribute, a quantity, a version), so that a {@code why} finds CEL's parser,
 * checker and interpreter loaded and warm when the cluster's lists arrive.
 */
final class WarmSelectors {
  private static final String DOMAIN = DriverNames.DEFAULT_DRIVER;
  private static final String EXPRESSION =
      "device.driver == \"%1$s\" && device.attributes[\"%1$s\"].type == \"gpu\"".formatted(DOMAIN)
          + " && device.attributes[\"%1$s\"].driverVersion.compareTo(semver(\"1.0.0\")) >= 0"
              .formatted(DOMAIN)
          + " && device.capacity[\"%1$s\"].memory.compareTo(quantity(\"1Gi\")) >= 0"
              .formatted(DOMAIN);

  private WarmSelectors() {}

  static DeviceSelectors build() {
    var selectors = new DeviceSelectors();
    selectors.evaluate(
        EXPRESSION,
        new CelDevice(
            DOMAIN,
            Map.of(DOMAIN, Map.of("type", "gpu", "driverVersion", Semver.parse("580.1.0"))),
            Map.of(DOMAIN, Map.of("memory", Quantity.parse("80Gi"))),
            false));
    return selectors;
  }
}
