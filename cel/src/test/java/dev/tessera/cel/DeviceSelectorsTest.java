package dev.tessera.cel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.cel.DeviceSelectors.Outcome;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceSelectorsTest {
  private static final String D = "gpu.tessera.dev";
  private static final CelDevice MIG =
      new CelDevice(
          D,
          Map.of(
              D,
              Map.of(
                  "type", "mig",
                  "profile", "1g.10gb",
                  "driverVersion", Semver.parse("580.95.5")),
              "resource.kubernetes.io",
              Map.of("pcieRoot", "pci0000:00")),
          Map.of(D, Map.of("memory", Quantity.parse("10Gi"))),
          false);

  private final DeviceSelectors selectors = new DeviceSelectors();

  @Test
  void stringsAndTheDriverCompare() {
    assertThat(
            selectors.evaluate(
                "device.driver == \"gpu.tessera.dev\" && device.attributes[\"gpu.tessera.dev\"].type"
                    + " == \"mig\"",
                MIG))
        .isEqualTo(new Outcome.Matches(true));
    assertThat(selectors.evaluate("device.attributes[\"gpu.tessera.dev\"].profile == \"3g\"", MIG))
        .isEqualTo(new Outcome.Matches(false));
  }

  @Test
  void quantitiesAndVersionsCompareThroughTheirLibraries() {
    assertThat(
            selectors.evaluate(
                "device.capacity[\"gpu.tessera.dev\"].memory.compareTo(quantity(\"10Gi\")) >= 0",
                MIG))
        .isEqualTo(new Outcome.Matches(true));
    assertThat(
            selectors.evaluate(
                "device.capacity[\"gpu.tessera.dev\"].memory.isGreaterThan(quantity(\"20Gi\"))",
                MIG))
        .isEqualTo(new Outcome.Matches(false));
    assertThat(
            selectors.evaluate(
                "device.attributes[\"gpu.tessera.dev\"].driverVersion.isGreaterThan(semver(\"550.0.0\"))",
                MIG))
        .isEqualTo(new Outcome.Matches(true));
  }

  @Test
  void aMissingAttributeFailsAsInTheScheduler() {
    assertThat(
            selectors.evaluate(
                "device.attributes[\"gpu.tessera.dev\"].prodcutName == \"NVIDIA H100\"", MIG))
        .isInstanceOf(Outcome.Failed.class);
  }

  @Test
  void anExpressionThatDoesNotCompileFails() {
    assertThat(selectors.evaluate("device.attributes[", MIG))
        .isInstanceOfSatisfying(
            Outcome.Failed.class, f -> assertThat(f.message()).startsWith("does not compile"));
  }
}
