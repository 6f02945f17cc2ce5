package dev.tessera.plugin.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The C functions of {@code libnvidia-ml.so.1} that {@link JnaNvml} calls, as JNA maps them. Every
 * handle type ({@code nvmlDevice_t}, {@code nvmlGpuInstance_t}, ...) is a struct holding one
 * pointer, passed like a pointer; every function returns an {@code nvmlReturn_t}.
 */
interface NvmlLibrary extends Library {
  int nvmlInit_v2();

  int nvmlShutdown();

  String nvmlErrorString(int result);

  int nvmlSystemGetDriverVersion(byte[] version, int length);

  int nvmlSystemGetNVMLVersion(byte[] version, int length);

  int nvmlSystemGetCudaDriverVersion(IntByReference cudaDriverVersion);

  int nvmlDeviceGetCount_v2(IntByReference deviceCount);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  int nvmlDeviceGetBrand(Pointer device, IntByReference type);

  int nvmlDeviceGetArchitecture(Pointer device, IntByReference arch);

  int nvmlDeviceGetCudaComputeCapability(
      Pointer device, IntByReference major, IntByReference minor);

  int nvmlDeviceGetMemoryInfo_v2(Pointer device, NvmlStructs.MemoryV2 memory);

  int nvmlDeviceGetPciInfo_v3(Pointer device, Pointer pci);

  int nvmlDeviceGetNumaNodeId(Pointer device, IntByReference node);

  int nvmlDeviceGetMinorNumber(Pointer device, IntByReference minorNumber);

  int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

  int nvmlDeviceSetMigMode(Pointer device, int mode, IntByReference activationStatus);

  int nvmlDeviceGetGpuInstanceProfileInfoV(Pointer device, int profile, Pointer info);

  /**
   * {@code placements} is an array of {@code nvmlGpuInstancePlacement_t}: {@code start, size}
   * pairs, as JNA copies an {@code int[]} in and out (a {@code Structure[]} costs one reflective
   * read and write per element).
   */
  int nvmlDeviceGetGpuInstancePossiblePlacements_v2(
      Pointer device, int profileId, int[] placements, IntByReference count);

  int nvmlDeviceGetGpuInstances(
      Pointer device, int profileId, Pointer gpuInstances, IntByReference count);

  int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gpuInstance);

  int nvmlGpuInstanceGetInfo(Pointer gpuInstance, NvmlStructs.GpuInstanceInfo info);

  int nvmlDeviceCreateGpuInstanceWithPlacement(
      Pointer device,
      int profileId,
      NvmlStructs.InstancePlacement placement,
      PointerByReference gpuInstance);

  int nvmlGpuInstanceDestroy(Pointer gpuInstance);

  int nvmlGpuInstanceGetComputeInstanceProfileInfoV(
      Pointer gpuInstance, int profile, int engProfile, Pointer info);

  int nvmlGpuInstanceGetComputeInstances(
      Pointer gpuInstance, int profileId, Pointer computeInstances, IntByReference count);

  int nvmlComputeInstanceGetInfo_v2(Pointer computeInstance, NvmlStructs.ComputeInstanceInfo info);

  int nvmlGpuInstanceCreateComputeInstance(
      Pointer gpuInstance, int profileId, PointerByReference computeInstance);

  int nvmlComputeInstanceDestroy(Pointer computeInstance);

  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

  int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetUtilizationRates(Pointer device, NvmlStructs.Utilization utilization);

  int nvmlDeviceGetPowerUsage(Pointer device, IntByReference power);

  int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp);

  int nvmlDeviceGetClockInfo(Pointer device, int type, IntByReference clock);

  int nvmlDeviceGetTotalEccErrors(
      Pointer device, int errorType, int counterType, LongByReference eccCounts);

  int nvmlDeviceGetComputeRunningProcesses_v3(
      Pointer device, IntByReference infoCount, NvmlStructs.ProcessInfo[] infos);

  int nvmlDeviceGetMPSComputeRunningProcesses_v3(
      Pointer device, IntByReference infoCount, NvmlStructs.ProcessInfo[] infos);

  int nvmlEventSetCreate(PointerByReference set);

  int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

  int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

  int nvmlEventSetWait_v2(Pointer set, NvmlStructs.EventData data, int timeoutms);

  int nvmlEventSetFree(Pointer set);
}
