package dev.tessera.controller.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.cel.AttributeType;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The names the selector linter holds for published are the ones the renderer publishes for the
 * nodes the NVML simulator reports: the union over every simulator profile and offering is exactly
 * {@link PublishedNames}, with the same types.
 */
class PublishedNamesIT {
  private static final String DRIVER = "gpu.tessera.dev";

  @Test
  void theSpecimenPublishesWhatTheSimulatedFleetDoes() throws Exception {
    var attributes = new TreeMap<String, Map<String, AttributeType>>();
    var capacities = new TreeMap<String, Set<String>>();
    var renderer = new SliceRenderer();
    for (String profile : List.of("A100-SXM4-40GB", "H100-SXM5-80GB", "L40S")) {
      for (Offering offering : Offering.values()) {
        for (DesiredSlice slice :
            renderer.render(SimulatedInventories.node(profile, 2), offering)) {
          if (slice instanceof DesiredSlice.Devices devices) {
            for (Device device : devices.devices()) {
              device
                  .getAttributes()
                  .forEach(
                      (name, value) ->
                          attributes
                              .computeIfAbsent(domain(name), d -> new TreeMap<>())
                              .put(unqualified(name), type(value.getVersion(), value.getInt())));
              device
                  .getCapacity()
                  .keySet()
                  .forEach(
                      name ->
                          capacities
                              .computeIfAbsent(domain(name), d -> new TreeSet<>())
                              .add(unqualified(name)));
            }
          }
        }
      }
    }
    PublishedNames published = PublishedNames.of(DRIVER);
    assertThat(published.attributes()).isEqualTo(attributes);
    assertThat(published.capacities()).isEqualTo(capacities);
    assertThat(published.attributesOf(DRIVER))
        .containsEntry("productName", AttributeType.STRING)
        .containsEntry("driverVersion", AttributeType.VERSION)
        .containsEntry("numaNode", AttributeType.INT);
    assertThat(published.capacitiesOf(DRIVER)).contains("memory", "compute", "multiprocessors");
    assertThat(published.attributeDomainOf("pcieRoot")).hasValue("resource.kubernetes.io");
  }

  private static String domain(String name) {
    return name.contains("/") ? name.substring(0, name.indexOf('/')) : DRIVER;
  }

  private static String unqualified(String name) {
    return name.substring(name.indexOf('/') + 1);
  }

  private static AttributeType type(String version, Long integer) {
    return version != null
        ? AttributeType.VERSION
        : integer != null ? AttributeType.INT : AttributeType.STRING;
  }
}
