package dev.tessera.plugin.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
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
    NvmlStructs.PciInfo p = new NvmlStructs.PciInfo();
    p.domain = 7;
    p.busId[0] = 'X';

    assertThat(p.size()).isEqualTo(68);
    assertThat(written(p).getInt(16)).isEqualTo(7);
    assertThat(p.getPointer().getByte(36)).isEqualTo((byte) 'X');
  }

  @Test
  void gpuInstanceProfileInfoV2() {
    NvmlStructs.GpuInstanceProfileInfoV2 i = new NvmlStructs.GpuInstanceProfileInfoV2();
    i.memorySizeMB = 0x1122334455667788L;
    i.name[0] = 'M';

    assertThat(i.size()).isEqualTo(152);
    assertThat(i.version).isEqualTo(0x2000098);
    assertThat(written(i).getLong(48)).isEqualTo(0x1122334455667788L);
    assertThat(i.getPointer().getByte(56)).isEqualTo((byte) 'M');
  }

  @Test
  void computeInstanceProfileInfoV2() {
    NvmlStructs.ComputeInstanceProfileInfoV2 i = new NvmlStructs.ComputeInstanceProfileInfoV2();
    i.name[0] = 'C';

    assertThat(i.size()).isEqualTo(136);
    assertThat(i.version).isEqualTo(0x2000088);
    assertThat(written(i).getByte(40)).isEqualTo((byte) 'C');
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
