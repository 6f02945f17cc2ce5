package dev.tessera.controller.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.events.EventType;
import dev.tessera.api.events.Occurrence;
import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthTransitionsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final DeviceProblem XID_79 =
      new DeviceProblem(
          "gpu.tessera.dev/xid", "79", TaintEffect.NO_SCHEDULE, "GPU fell off the bus", T0, T0);

  private static NodeHealth sick(String device, DeviceProblem... problems) {
    return new NodeHealth(List.of(new DeviceHealth(device, List.of(problems))));
  }

  @Test
  void aNewProblemTaintsWithAWarningNamingTheDeviceAndTheProblem() {
    List<Occurrence> events =
        HealthTransitions.between("node-a", "u", NodeHealth.ALL_HEALTHY, sick("gpu-0", XID_79));

    assertThat(events).hasSize(1);
    Occurrence tainted = events.get(0);
    assertThat(tainted.reason()).isEqualTo("DeviceTainted");
    assertThat(tainted.type()).isEqualTo(EventType.WARNING);
    assertThat(tainted.message())
        .contains("gpu-0")
        .contains("gpu.tessera.dev/xid=79")
        .contains("fell off the bus");
    assertThat(tainted.object().kind()).isEqualTo("GpuNode");
    assertThat(tainted.object().name()).isEqualTo("node-a");
    assertThat(tainted.object().eventNamespace()).isEqualTo("default");
  }

  @Test
  void theSameProblemSeenAgainTellsNothing() {
    var later = XID_79;
    var again = new DeviceProblem(later.key(), later.value(), later.effect(), "again", T0, T0);
    assertThat(HealthTransitions.between("n", "u", sick("gpu-0", XID_79), sick("gpu-0", again)))
        .isEmpty();
  }

  @Test
  void aDeviceWithoutProblemsLeftRecovers() {
    List<Occurrence> events =
        HealthTransitions.between("n", "u", sick("gpu-0", XID_79), NodeHealth.ALL_HEALTHY);

    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo("DeviceRecovered");
              assertThat(e.type()).isEqualTo(EventType.NORMAL);
              assertThat(e.message()).contains("gpu-0");
            });
  }

  @Test
  void anotherDeviceFallingIllTellsOnlyThatDevice() {
    List<Occurrence> events =
        HealthTransitions.between(
            "n",
            "u",
            sick("gpu-0", XID_79),
            new NodeHealth(
                List.of(
                    new DeviceHealth("gpu-0", List.of(XID_79)),
                    new DeviceHealth("gpu-1", List.of(XID_79)))));

    assertThat(events).singleElement().satisfies(e -> assertThat(e.message()).contains("gpu-1"));
  }
}
