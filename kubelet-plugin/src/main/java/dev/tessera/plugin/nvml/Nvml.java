package dev.tessera.plugin.nvml;

import dev.tessera.plugin.nvml.NvmlHandle.ComputeInstance;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.NvmlHandle.EventSet;
import dev.tessera.plugin.nvml.NvmlHandle.GpuInstance;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The NVML calls Tessera uses, and nothing else. An instance is initialized when it is opened and
 * shut down by {@link #close()}. Every method throws {@link NvmlException} when NVML fails, except
 * where an {@code Optional} says that NVML answered "not supported" or "not found".
 */
public interface Nvml extends AutoCloseable {

  /** {@code NVML_GPU_INSTANCE_PROFILE_COUNT}: profile indexes are {@code 0..count-1}. */
  int GPU_INSTANCE_PROFILE_COUNT = 0x12;

  /** {@code NVML_COMPUTE_INSTANCE_PROFILE_COUNT}. */
  int COMPUTE_INSTANCE_PROFILE_COUNT = 0x9;

  // --- system

  /** {@code nvmlSystemGetDriverVersion}, e.g. {@code 580.95.05}. */
  String driverVersion();

  /** {@code nvmlSystemGetCudaDriverVersion}, e.g. {@code 13000} for CUDA 13.0. */
  int cudaDriverVersion();

  /** {@code nvmlSystemGetNVMLVersion}. */
  String nvmlVersion();

  // --- devices

  /** {@code nvmlDeviceGetCount_v2}. */
  int deviceCount();

  /** {@code nvmlDeviceGetHandleByIndex_v2}. */
  Device deviceByIndex(int index);

  /** {@code nvmlDeviceGetHandleByUUID}. */
  Device deviceByUuid(String uuid);

  /** {@code nvmlDeviceGetUUID}; works on MIG device handles too. */
  String uuid(Device device);

  /** {@code nvmlDeviceGetName}. */
  String name(Device device);

  /** {@code nvmlDeviceGetBrand}: an {@code nvmlBrandType_t}. */
  int brand(Device device);

  /** {@code nvmlDeviceGetArchitecture}: an {@code NVML_DEVICE_ARCH_*} value. */
  int architecture(Device device);

  /** {@code nvmlDeviceGetCudaComputeCapability}. */
  ComputeCapability cudaComputeCapability(Device device);

  /** {@code nvmlDeviceGetMemoryInfo_v2}; works on MIG device handles too. */
  MemoryInfo memoryInfo(Device device);

  /** The bus ID from {@code nvmlDeviceGetPciInfo_v3}, e.g. {@code 00000000:1B:00.0}. */
  String pciBusId(Device device);

  /** {@code nvmlDeviceGetNumaNodeId}; empty where NVML says not supported. */
  OptionalInt numaNode(Device device);

  /** {@code nvmlDeviceGetMinorNumber}: the {@code N} of {@code /dev/nvidiaN}. */
  int minorNumber(Device device);

  // --- MIG mode and profiles

  /** {@code nvmlDeviceGetMigMode}; empty where the GPU cannot do MIG. */
  Optional<MigModeState> migMode(Device device);

  /**
   * {@code nvmlDeviceSetMigMode}. Returns the activation status NVML reports (an {@code
   * nvmlReturn_t}, {@code 0} when the mode took effect without a reset).
   */
  int setMigMode(Device device, boolean enabled);

  /**
   * {@code nvmlDeviceGetGpuInstanceProfileInfoV} for an {@code NVML_GPU_INSTANCE_PROFILE_*} index;
   * empty where the GPU does not have that profile.
   */
  Optional<GpuInstanceProfileInfo> gpuInstanceProfileInfo(Device device, int profileIndex);

  /** {@code nvmlDeviceGetGpuInstancePossiblePlacements_v2} for a profile id. */
  List<Placement> gpuInstancePossiblePlacements(Device device, int profileId);

  // --- GPU and compute instances

  /** {@code nvmlDeviceGetGpuInstances}: the existing GPU instances of a profile id. */
  List<GpuInstance> gpuInstances(Device device, int profileId);

  /** {@code nvmlDeviceGetGpuInstanceById}. */
  GpuInstance gpuInstanceById(Device device, int gpuInstanceId);

  /** {@code nvmlGpuInstanceGetInfo}. */
  GpuInstanceInfo gpuInstanceInfo(GpuInstance gpuInstance);

  /** {@code nvmlDeviceCreateGpuInstanceWithPlacement}. */
  GpuInstance createGpuInstance(Device device, int profileId, Placement placement);

  /** {@code nvmlGpuInstanceDestroy}. */
  void destroyGpuInstance(GpuInstance gpuInstance);

  /**
   * {@code nvmlGpuInstanceGetComputeInstanceProfileInfoV} for an {@code
   * NVML_COMPUTE_INSTANCE_PROFILE_*} index with the shared engine profile; empty where the GPU
   * instance does not have it.
   */
  Optional<ComputeInstanceProfileInfo> computeInstanceProfileInfo(
      GpuInstance gpuInstance, int profileIndex);

  /** {@code nvmlGpuInstanceGetComputeInstances}: the compute instances of a profile id. */
  List<ComputeInstance> computeInstances(GpuInstance gpuInstance, int profileId);

  /** {@code nvmlComputeInstanceGetInfo_v2}. */
  ComputeInstanceInfo computeInstanceInfo(ComputeInstance computeInstance);

  /** {@code nvmlGpuInstanceCreateComputeInstance}. */
  ComputeInstance createComputeInstance(GpuInstance gpuInstance, int profileId);

  /** {@code nvmlComputeInstanceDestroy}. */
  void destroyComputeInstance(ComputeInstance computeInstance);

  // --- MIG devices

  /** {@code nvmlDeviceGetMaxMigDeviceCount}. */
  int maxMigDeviceCount(Device device);

  /** {@code nvmlDeviceGetMigDeviceHandleByIndex}; empty where that slot holds no MIG device. */
  Optional<Device> migDeviceByIndex(Device device, int index);

  /** {@code nvmlDeviceGetGpuInstanceId} of a MIG device handle. */
  int gpuInstanceId(Device migDevice);

  /** {@code nvmlDeviceGetComputeInstanceId} of a MIG device handle. */
  int computeInstanceId(Device migDevice);

  // --- telemetry (read by the metrics sampler; each throws where NVML cannot tell, e.g.
  // NOT_SUPPORTED on a MIG device)

  /** {@code nvmlDeviceGetUtilizationRates}. */
  Utilization utilization(Device device);

  /** {@code nvmlDeviceGetPowerUsage}, in milliwatts. */
  int powerUsageMilliwatts(Device device);

  /** {@code nvmlDeviceGetTemperature} of the GPU die ({@code NVML_TEMPERATURE_GPU}), in °C. */
  int temperatureCelsius(Device device);

  /** {@code nvmlDeviceGetClockInfo} of the SM clock ({@code NVML_CLOCK_SM}), in MHz. */
  int smClockMhz(Device device);

  /** {@code nvmlDeviceGetTotalEccErrors} with the volatile counter (since the driver loaded). */
  long volatileEccErrors(Device device, MemoryErrorType type);

  /** {@code nvmlDeviceGetComputeRunningProcesses_v3}. */
  List<ProcessInfo> computeProcesses(Device device);

  /** {@code nvmlDeviceGetMPSComputeRunningProcesses_v3}: the device's MPS clients. */
  List<ProcessInfo> mpsProcesses(Device device);

  // --- events

  /** {@code nvmlEventSetCreate}. */
  EventSet createEventSet();

  /** {@code nvmlDeviceGetSupportedEventTypes}: a mask of {@link NvmlEventType} bits. */
  long supportedEventTypes(Device device);

  /** {@code nvmlDeviceRegisterEvents} for a mask of {@link NvmlEventType} bits. */
  void registerEvents(Device device, long eventTypes, EventSet set);

  /** {@code nvmlEventSetWait_v2}; empty when the timeout passes without an event. */
  Optional<NvmlEvent> waitForEvent(EventSet set, Duration timeout);

  /** {@code nvmlEventSetFree}. */
  void freeEventSet(EventSet set);

  /** {@code nvmlShutdown}. Idempotent. */
  @Override
  void close();
}
