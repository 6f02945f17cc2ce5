package dev.tessera.plugin.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * The {@code nvml.h} structs the binding passes: JNA {@link Structure}s field for field in
 * declaration order, and those with char arrays read by offset ({@link ByOffset}). Versioned
 * structs set {@code version} the way {@code NVML_STRUCT_VERSION} does: {@code sizeof | ver << 24}.
 * Handle fields ({@code nvmlDevice_t} etc.) are one pointer each.
 */
final class NvmlStructs {
  static final int DEVICE_NAME_V2_BUFFER_SIZE = 96;
  static final int PCI_BUS_ID_BUFFER_SIZE = 32;

  private NvmlStructs() {}

  static int structVersion(Structure s, int version) {
    return versionWord(s.size(), version);
  }

  /** {@code NVML_STRUCT_VERSION}: {@code sizeof | version << 24}. */
  static int versionWord(int size, int version) {
    return size | (version << 24);
  }

  /**
   * A struct read by offset from native memory it owns (closed after the call). JNA derives a
   * {@link Structure}'s layout once per class, except for one with an array field: that one it
   * derives again for every instance, and twice (the array is still null when Structure's
   * constructor first tries). Discovery asks each GPU for its PCI info and 18 GPU-instance
   * profiles, structs with char arrays; those derivations were most of discovery's time. The
   * offsets are what a C compiler gives {@code nvml.h} on x86_64 (NvmlStructsTest; the simulator,
   * built from the header, fills them in JnaNvmlIT).
   */
  abstract static sealed class ByOffset implements AutoCloseable
      permits PciInfo, GpuInstanceProfileInfoV2, ComputeInstanceProfileInfoV2 {
    final Memory memory;

    ByOffset(int size) {
      memory = new Memory(size);
      memory.clear();
    }

    /** A versioned struct: its first word is its {@link NvmlStructs#versionWord}. */
    ByOffset(int size, int version) {
      this(size);
      memory.setInt(0, NvmlStructs.versionWord(size, version));
    }

    int versionWord() {
      return memory.getInt(0);
    }

    /** A NUL-terminated char array of {@code length} bytes at {@code offset}. */
    String chars(int offset, int length) {
      return Native.toString(memory.getByteArray(offset, length));
    }

    @Override
    public void close() {
      memory.close();
    }
  }

  /** {@code nvmlMemory_v2_t}. */
  @FieldOrder({"version", "total", "reserved", "free", "used"})
  public static class MemoryV2 extends Structure {
    public int version;
    public long total;
    public long reserved;
    public long free;
    public long used;

    public MemoryV2() {
      version = structVersion(this, 2);
    }
  }

  /**
   * {@code nvmlPciInfo_t} as {@code nvmlDeviceGetPciInfo_v3} fills it, read by offset (see {@link
   * ByOffset}): {@code busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId} (ints),
   * {@code busId[32]} (at 36).
   */
  static final class PciInfo extends ByOffset {
    static final int SIZE = 68;

    PciInfo() {
      super(SIZE);
    }

    String busId() {
      return chars(36, PCI_BUS_ID_BUFFER_SIZE);
    }
  }

  /**
   * {@code nvmlGpuInstancePlacement_t}, also the layout of {@code nvmlComputeInstancePlacement_t}.
   */
  @FieldOrder({"start", "size"})
  public static class InstancePlacement extends Structure {
    public int start;
    public int size;

    public InstancePlacement() {}

    InstancePlacement(Placement placement) {
      start = placement.start();
      size = placement.size();
    }

    Placement toPlacement() {
      return new Placement(start, size);
    }
  }

  /**
   * {@code nvmlGpuInstanceProfileInfo_v2_t}, read by offset from native memory (see {@link
   * ByOffset}): {@code version, id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount,
   * copyEngineCount, decoderCount, encoderCount, jpegCount, ofaCount} (ints), {@code memorySizeMB}
   * (8 bytes, at 48), {@code name[96]}.
   */
  static final class GpuInstanceProfileInfoV2 extends ByOffset {
    static final int SIZE = 152;

    GpuInstanceProfileInfoV2() {
      super(SIZE, 2);
    }

    int id() {
      return memory.getInt(4);
    }

    boolean isP2pSupported() {
      return memory.getInt(8) != 0;
    }

    int sliceCount() {
      return memory.getInt(12);
    }

    int instanceCount() {
      return memory.getInt(16);
    }

    int multiprocessorCount() {
      return memory.getInt(20);
    }

    int copyEngineCount() {
      return memory.getInt(24);
    }

    int decoderCount() {
      return memory.getInt(28);
    }

    int encoderCount() {
      return memory.getInt(32);
    }

    int jpegCount() {
      return memory.getInt(36);
    }

    int ofaCount() {
      return memory.getInt(40);
    }

    long memorySizeMB() {
      return memory.getLong(48);
    }

    String name() {
      return chars(56, DEVICE_NAME_V2_BUFFER_SIZE);
    }
  }

  /** {@code nvmlGpuInstanceInfo_t}. */
  @FieldOrder({"device", "id", "profileId", "placement"})
  public static class GpuInstanceInfo extends Structure {
    public Pointer device;
    public int id;
    public int profileId;
    public InstancePlacement placement;
  }

  /**
   * {@code nvmlComputeInstanceProfileInfo_v2_t}, read by offset (see {@link ByOffset}): {@code
   * version, id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
   * sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount} (ints), {@code
   * name[96]}.
   */
  static final class ComputeInstanceProfileInfoV2 extends ByOffset {
    static final int SIZE = 136;

    ComputeInstanceProfileInfoV2() {
      super(SIZE, 2);
    }

    int id() {
      return memory.getInt(4);
    }

    int sliceCount() {
      return memory.getInt(8);
    }

    int instanceCount() {
      return memory.getInt(12);
    }

    int multiprocessorCount() {
      return memory.getInt(16);
    }

    int sharedCopyEngineCount() {
      return memory.getInt(20);
    }

    int sharedDecoderCount() {
      return memory.getInt(24);
    }

    int sharedEncoderCount() {
      return memory.getInt(28);
    }

    int sharedJpegCount() {
      return memory.getInt(32);
    }

    int sharedOfaCount() {
      return memory.getInt(36);
    }

    String name() {
      return chars(40, DEVICE_NAME_V2_BUFFER_SIZE);
    }
  }

  /** {@code nvmlComputeInstanceInfo_t}. */
  @FieldOrder({"device", "gpuInstance", "id", "profileId", "placement"})
  public static class ComputeInstanceInfo extends Structure {
    public Pointer device;
    public Pointer gpuInstance;
    public int id;
    public int profileId;
    public InstancePlacement placement;
  }

  /** {@code nvmlEventData_t}. */
  @FieldOrder({"device", "eventType", "eventData", "gpuInstanceId", "computeInstanceId"})
  public static class EventData extends Structure {
    public Pointer device;
    public long eventType;
    public long eventData;
    public int gpuInstanceId;
    public int computeInstanceId;
  }

  /** {@code nvmlUtilization_t}. */
  @FieldOrder({"gpu", "memory"})
  public static class Utilization extends Structure {
    public int gpu;
    public int memory;
  }

  /** {@code nvmlProcessInfo_t} (the {@code _v3} process calls' element). */
  @FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId"})
  public static class ProcessInfo extends Structure {
    public int pid;
    public long usedGpuMemory;
    public int gpuInstanceId;
    public int computeInstanceId;

    dev.tessera.plugin.nvml.ProcessInfo toProcessInfo() {
      return new dev.tessera.plugin.nvml.ProcessInfo(
          pid, usedGpuMemory, gpuInstanceId, computeInstanceId);
    }
  }
}
