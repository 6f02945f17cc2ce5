package dev.tessera.plugin.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * The {@code nvml.h} structs the binding passes, field for field in declaration order. Versioned
 * structs set {@code version} the way {@code NVML_STRUCT_VERSION} does: {@code sizeof | ver << 24}.
 * Handle fields ({@code nvmlDevice_t} etc.) are one pointer each.
 */
final class NvmlStructs {
  static final int DEVICE_NAME_V2_BUFFER_SIZE = 96;
  static final int PCI_BUS_ID_BUFFER_SIZE = 32;
  static final int PCI_BUS_ID_BUFFER_V2_SIZE = 16;

  private NvmlStructs() {}

  static int structVersion(Structure s, int version) {
    return s.size() | (version << 24);
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

  /** {@code nvmlPciInfo_t} (as {@code nvmlDeviceGetPciInfo_v3} fills it). */
  @FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
  public static class PciInfo extends Structure {
    public byte[] busIdLegacy = new byte[PCI_BUS_ID_BUFFER_V2_SIZE];
    public int domain;
    public int bus;
    public int device;
    public int pciDeviceId;
    public int pciSubSystemId;
    public byte[] busId = new byte[PCI_BUS_ID_BUFFER_SIZE];
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

  /** {@code nvmlGpuInstanceProfileInfo_v2_t}. */
  @FieldOrder({
    "version",
    "id",
    "isP2pSupported",
    "sliceCount",
    "instanceCount",
    "multiprocessorCount",
    "copyEngineCount",
    "decoderCount",
    "encoderCount",
    "jpegCount",
    "ofaCount",
    "memorySizeMB",
    "name"
  })
  public static class GpuInstanceProfileInfoV2 extends Structure {
    public int version;
    public int id;
    public int isP2pSupported;
    public int sliceCount;
    public int instanceCount;
    public int multiprocessorCount;
    public int copyEngineCount;
    public int decoderCount;
    public int encoderCount;
    public int jpegCount;
    public int ofaCount;
    public long memorySizeMB;
    public byte[] name = new byte[DEVICE_NAME_V2_BUFFER_SIZE];

    public GpuInstanceProfileInfoV2() {
      version = structVersion(this, 2);
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

  /** {@code nvmlComputeInstanceProfileInfo_v2_t}. */
  @FieldOrder({
    "version",
    "id",
    "sliceCount",
    "instanceCount",
    "multiprocessorCount",
    "sharedCopyEngineCount",
    "sharedDecoderCount",
    "sharedEncoderCount",
    "sharedJpegCount",
    "sharedOfaCount",
    "name"
  })
  public static class ComputeInstanceProfileInfoV2 extends Structure {
    public int version;
    public int id;
    public int sliceCount;
    public int instanceCount;
    public int multiprocessorCount;
    public int sharedCopyEngineCount;
    public int sharedDecoderCount;
    public int sharedEncoderCount;
    public int sharedJpegCount;
    public int sharedOfaCount;
    public byte[] name = new byte[DEVICE_NAME_V2_BUFFER_SIZE];

    public ComputeInstanceProfileInfoV2() {
      version = structVersion(this, 2);
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
