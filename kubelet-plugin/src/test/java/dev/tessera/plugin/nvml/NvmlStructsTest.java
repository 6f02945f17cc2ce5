package dev.tessera.plugin.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JNA structs against the layout of NVIDIA's {@code nvml.h} on x86_64 (sizes, offsets and
 * version words as a C compiler computes them from the header).
 */
class NvmlStructsTest {
  private static Pointer written(Structure s) {
    s.write();
    return s.getPointer();
  }

  @Test
  void memoryV2() {
    NvmlStructs.MemoryV2 m = new NvmlStructs.MemoryV2();
    m.total = 11;
    m.used = 44;

    assertThat(m.size()).isEqualTo(40);
    assertThat(m.version).isEqualTo(0x2000028);
    assertThat(written(m).getLong(8)).isEqualTo(11);
    assertThat(m.getPointer().getLong(32)).isEqualTo(44);
  }

  @Test
  void pciInfo() {
    try (var p = new NvmlStructs.PciInfo()) {
      p.memory.setString(36, "00000000:1B:00.0");

      assertThat(p.memory.size()).isEqualTo(68);
      assertThat(p.busId()).isEqualTo("00000000:1B:00.0");
    }
  }

  /** Writes each int field's own offset into it, so a read at the wrong offset reads another. */
  private static void offsetsInto(NvmlStructs.ByOffset s, int from, int to) {
    for (int offset = from; offset <= to; offset += 4) {
      s.memory.setInt(offset, offset);
    }
  }

  @Test
  void gpuInstanceProfileInfoV2() {
    try (var i = new NvmlStructs.GpuInstanceProfileInfoV2()) {
      assertThat(i.memory.size()).isEqualTo(152);
      assertThat(i.versionWord()).isEqualTo(0x2000098);
      offsetsInto(i, 4, 40);
      i.memory.setLong(48, 0x1122334455667788L);
      i.memory.setString(56, "3g.40gb");

      assertThat(
              List.of(
                  i.id(),
                  i.sliceCount(),
                  i.instanceCount(),
                  i.multiprocessorCount(),
                  i.copyEngineCount(),
                  i.decoderCount(),
                  i.encoderCount(),
                  i.jpegCount(),
                  i.ofaCount()))
          .containsExactly(4, 12, 16, 20, 24, 28, 32, 36, 40);
      assertThat(i.isP2pSupported()).isTrue(); // 8 at offset 8
      assertThat(i.memorySizeMB()).isEqualTo(0x1122334455667788L);
      assertThat(i.name()).isEqualTo("3g.40gb");
    }
  }

  @Test
  void aNameWithoutItsNulEndsWithItsArray() {
    try (var i = new NvmlStructs.GpuInstanceProfileInfoV2()) {
      byte[] full = "x".repeat(96).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      i.memory.write(56, full, 0, full.length);

      assertThat(i.name()).isEqualTo("x".repeat(96));
    }
  }

  @Test
  void computeInstanceProfileInfoV2() {
    try (var i = new NvmlStructs.ComputeInstanceProfileInfoV2()) {
      assertThat(i.memory.size()).isEqualTo(136);
      assertThat(i.versionWord()).isEqualTo(0x2000088);
      offsetsInto(i, 4, 36);
      i.memory.setString(40, "1c.3g.40gb");

      assertThat(
              List.of(
                  i.id(),
                  i.sliceCount(),
                  i.instanceCount(),
                  i.multiprocessorCount(),
                  i.sharedCopyEngineCount(),
                  i.sharedDecoderCount(),
                  i.sharedEncoderCount(),
                  i.sharedJpegCount(),
                  i.sharedOfaCount()))
          .containsExactly(4, 8, 12, 16, 20, 24, 28, 32, 36);
      assertThat(i.name()).isEqualTo("1c.3g.40gb");
    }
  }

  @Test
  void instanceInfos() {
    NvmlStructs.GpuInstanceInfo gi = new NvmlStructs.GpuInstanceInfo();
    gi.id = 3;
    gi.placement = new NvmlStructs.InstancePlacement(new Placement(4, 2));
    NvmlStructs.ComputeInstanceInfo ci = new NvmlStructs.ComputeInstanceInfo();
    ci.id = 5;
    ci.placement = new NvmlStructs.InstancePlacement(new Placement(1, 1));

    assertThat(new NvmlStructs.InstancePlacement().size()).isEqualTo(8);
    assertThat(gi.size()).isEqualTo(24);
    assertThat(written(gi).getInt(8)).isEqualTo(3);
    assertThat(gi.getPointer().getInt(16)).isEqualTo(4);
    assertThat(gi.getPointer().getInt(20)).isEqualTo(2);
    assertThat(ci.size()).isEqualTo(32);
    assertThat(written(ci).getInt(16)).isEqualTo(5);
    assertThat(ci.getPointer().getInt(24)).isEqualTo(1);
  }

  @Test
  void eventData() {
    NvmlStructs.EventData e = new NvmlStructs.EventData();
    e.eventData = 79;
    e.gpuInstanceId = 0xFFFFFFFF;

    assertThat(e.size()).isEqualTo(32);
    assertThat(written(e).getLong(16)).isEqualTo(79);
    assertThat(e.getPointer().getInt(24)).isEqualTo(0xFFFFFFFF);
  }
}
