package dev.tessera.plugin.nvml;

import static dev.tessera.plugin.nvml.NvmlReturn.NVML_ERROR_FUNCTION_NOT_FOUND;
import static dev.tessera.plugin.nvml.NvmlReturn.NVML_ERROR_INSUFFICIENT_SIZE;
import static dev.tessera.plugin.nvml.NvmlReturn.NVML_ERROR_INVALID_ARGUMENT;
import static dev.tessera.plugin.nvml.NvmlReturn.NVML_ERROR_NOT_FOUND;
import static dev.tessera.plugin.nvml.NvmlReturn.NVML_ERROR_NOT_SUPPORTED;
import static dev.tessera.plugin.nvml.NvmlReturn.NVML_ERROR_TIMEOUT;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.tessera.plugin.nvml.NvmlHandle.ComputeInstance;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.NvmlHandle.EventSet;
import dev.tessera.plugin.nvml.NvmlHandle.GpuInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import java.util.function.LongFunction;
import java.util.stream.IntStream;

/**
 * {@link Nvml} over {@code libnvidia-ml.so.1} through JNA. The library is loaded by absolute path
 * from the driver root, privately ({@code RTLD_LOCAL}), so two driver roots can live in one JVM.
 * Calls are serialized by one lock per instance, except the event wait, which may block for its
 * whole timeout and which NVML allows alongside other calls.
 */
public final class JnaNvml implements Nvml {
  private static final int RTLD_LAZY = 0x1;
  private static final int RTLD_LOCAL = 0x0;
  private static final int STRING_BUFFER = 96;
  private static final int ENGINE_PROFILE_SHARED = 0;
  private static final int MAX_PLACEMENTS = 16;
  private static final int MAX_INSTANCES = 32;
  private static final int TEMPERATURE_GPU = 0;
  private static final int CLOCK_SM = 1;
  private static final int VOLATILE_ECC = 0;
  private static final int PROCESS_ROOM = 16;

  private final NvmlLibrary lib;
  private final String libraryPath;
  private final ReentrantLock lock = new ReentrantLock();
  private boolean closed;

  /**
   * Event waits in flight: they run outside the lock (a wait lasts its timeout), so {@link
   * #close()} leaves NVML open rather than shut it down under one.
   */
  private final AtomicInteger waiting = new AtomicInteger();

  private JnaNvml(NvmlLibrary lib, String libraryPath) {
    this.lib = lib;
    this.libraryPath = libraryPath;
  }

  /**
   * Loads NVML from {@code driverRoot} (e.g. {@code /} or {@code /run/nvidia/driver}) and inits it.
   */
  public static JnaNvml open(Path driverRoot) {
    String path = NvmlLibraryPath.resolve(driverRoot);
    NvmlLibrary lib;
    try {
      lib =
          Native.load(
              path, NvmlLibrary.class, Map.of(Library.OPTION_OPEN_FLAGS, RTLD_LAZY | RTLD_LOCAL));
    } catch (UnsatisfiedLinkError e) {
      throw new NvmlException(
          "dlopen", NvmlReturn.NVML_ERROR_LIBRARY_NOT_FOUND.code(), path + ": " + e.getMessage());
    }
    JnaNvml nvml = new JnaNvml(lib, path);
    nvml.call("nvmlInit_v2", lib::nvmlInit_v2);
    return nvml;
  }

  /** The library this instance loaded. */
  public String libraryPath() {
    return libraryPath;
  }

  /**
   * Shuts NVML down, unless an event wait is still in flight: a plugin that stops must not wait for
   * the health monitor's wait to time out, and NVML must not be shut down under it. The process is
   * exiting then, which releases NVML as a shutdown would.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (waiting.get() > 0) {
        return;
      }
      int rc = lib.nvmlShutdown();
      if (rc != 0) {
        throw error("nvmlShutdown", rc);
      }
    } finally {
      lock.unlock();
    }
  }

  // --- system

  @Override
  public String driverVersion() {
    byte[] buf = new byte[STRING_BUFFER];
    call("nvmlSystemGetDriverVersion", () -> lib.nvmlSystemGetDriverVersion(buf, buf.length));
    return Native.toString(buf);
  }

  @Override
  public int cudaDriverVersion() {
    IntByReference v = new IntByReference();
    call("nvmlSystemGetCudaDriverVersion", () -> lib.nvmlSystemGetCudaDriverVersion(v));
    return v.getValue();
  }

  @Override
  public String nvmlVersion() {
    byte[] buf = new byte[STRING_BUFFER];
    call("nvmlSystemGetNVMLVersion", () -> lib.nvmlSystemGetNVMLVersion(buf, buf.length));
    return Native.toString(buf);
  }

  // --- devices

  @Override
  public int deviceCount() {
    IntByReference count = new IntByReference();
    call("nvmlDeviceGetCount_v2", () -> lib.nvmlDeviceGetCount_v2(count));
    return count.getValue();
  }

  @Override
  public Device deviceByIndex(int index) {
    PointerByReference out = new PointerByReference();
    call("nvmlDeviceGetHandleByIndex_v2", () -> lib.nvmlDeviceGetHandleByIndex_v2(index, out));
    return new Device(peer(out));
  }

  @Override
  public Device deviceByUuid(String uuid) {
    PointerByReference out = new PointerByReference();
    call("nvmlDeviceGetHandleByUUID", () -> lib.nvmlDeviceGetHandleByUUID(uuid, out));
    return new Device(peer(out));
  }

  @Override
  public String uuid(Device device) {
    byte[] buf = new byte[STRING_BUFFER];
    call("nvmlDeviceGetUUID", () -> lib.nvmlDeviceGetUUID(ptr(device), buf, buf.length));
    return Native.toString(buf);
  }

  @Override
  public String name(Device device) {
    byte[] buf = new byte[STRING_BUFFER];
    call("nvmlDeviceGetName", () -> lib.nvmlDeviceGetName(ptr(device), buf, buf.length));
    return Native.toString(buf);
  }

  @Override
  public int brand(Device device) {
    return intOut("nvmlDeviceGetBrand", v -> lib.nvmlDeviceGetBrand(ptr(device), v));
  }

  @Override
  public int architecture(Device device) {
    return intOut("nvmlDeviceGetArchitecture", v -> lib.nvmlDeviceGetArchitecture(ptr(device), v));
  }

  @Override
  public ComputeCapability cudaComputeCapability(Device device) {
    IntByReference major = new IntByReference();
    IntByReference minor = new IntByReference();
    call(
        "nvmlDeviceGetCudaComputeCapability",
        () -> lib.nvmlDeviceGetCudaComputeCapability(ptr(device), major, minor));
    return new ComputeCapability(major.getValue(), minor.getValue());
  }

  @Override
  public MemoryInfo memoryInfo(Device device) {
    NvmlStructs.MemoryV2 m = new NvmlStructs.MemoryV2();
    call("nvmlDeviceGetMemoryInfo_v2", () -> lib.nvmlDeviceGetMemoryInfo_v2(ptr(device), m));
    return new MemoryInfo(m.total, m.reserved, m.free, m.used);
  }

  @Override
  public String pciBusId(Device device) {
    try (var pci = new NvmlStructs.PciInfo()) {
      call("nvmlDeviceGetPciInfo_v3", () -> lib.nvmlDeviceGetPciInfo_v3(ptr(device), pci.memory));
      return pci.busId();
    }
  }

  @Override
  public OptionalInt numaNode(Device device) {
    IntByReference node = new IntByReference();
    int rc =
        call(
            "nvmlDeviceGetNumaNodeId",
            () -> lib.nvmlDeviceGetNumaNodeId(ptr(device), node),
            NVML_ERROR_NOT_SUPPORTED,
            NVML_ERROR_FUNCTION_NOT_FOUND);
    return rc == 0 ? OptionalInt.of(node.getValue()) : OptionalInt.empty();
  }

  @Override
  public int minorNumber(Device device) {
    return intOut("nvmlDeviceGetMinorNumber", v -> lib.nvmlDeviceGetMinorNumber(ptr(device), v));
  }

  // --- MIG mode and profiles

  @Override
  public Optional<MigModeState> migMode(Device device) {
    IntByReference current = new IntByReference();
    IntByReference pending = new IntByReference();
    int rc =
        call(
            "nvmlDeviceGetMigMode",
            () -> lib.nvmlDeviceGetMigMode(ptr(device), current, pending),
            NVML_ERROR_NOT_SUPPORTED);
    return rc == 0
        ? Optional.of(new MigModeState(current.getValue() == 1, pending.getValue() == 1))
        : Optional.empty();
  }

  @Override
  public int setMigMode(Device device, boolean enabled) {
    IntByReference activation = new IntByReference();
    call(
        "nvmlDeviceSetMigMode",
        () -> lib.nvmlDeviceSetMigMode(ptr(device), enabled ? 1 : 0, activation));
    return activation.getValue();
  }

  @Override
  public Optional<GpuInstanceProfileInfo> gpuInstanceProfileInfo(Device device, int profileIndex) {
    try (var i = new NvmlStructs.GpuInstanceProfileInfoV2()) {
      int rc =
          call(
              "nvmlDeviceGetGpuInstanceProfileInfoV",
              () -> lib.nvmlDeviceGetGpuInstanceProfileInfoV(ptr(device), profileIndex, i.memory),
              NVML_ERROR_NOT_SUPPORTED,
              NVML_ERROR_INVALID_ARGUMENT);
      if (rc != 0) {
        return Optional.empty();
      }
      return Optional.of(
          new GpuInstanceProfileInfo(
              i.id(),
              i.isP2pSupported(),
              i.sliceCount(),
              i.instanceCount(),
              i.multiprocessorCount(),
              i.copyEngineCount(),
              i.decoderCount(),
              i.encoderCount(),
              i.jpegCount(),
              i.ofaCount(),
              i.memorySizeMB(),
              i.name()));
    }
  }

  @Override
  public List<Placement> gpuInstancePossiblePlacements(Device device, int profileId) {
    int[] placements = new int[2 * MAX_PLACEMENTS];
    IntByReference count = new IntByReference(MAX_PLACEMENTS);
    call(
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2",
        () ->
            lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2(
                ptr(device), profileId, placements, count));
    return IntStream.range(0, count.getValue())
        .mapToObj(n -> new Placement(placements[2 * n], placements[2 * n + 1]))
        .toList();
  }

  // --- GPU and compute instances

  @Override
  public List<GpuInstance> gpuInstances(Device device, int profileId) {
    return handles(
        "nvmlDeviceGetGpuInstances",
        (array, count) -> lib.nvmlDeviceGetGpuInstances(ptr(device), profileId, array, count),
        GpuInstance::new);
  }

  @Override
  public GpuInstance gpuInstanceById(Device device, int gpuInstanceId) {
    PointerByReference out = new PointerByReference();
    call(
        "nvmlDeviceGetGpuInstanceById",
        () -> lib.nvmlDeviceGetGpuInstanceById(ptr(device), gpuInstanceId, out));
    return new GpuInstance(peer(out));
  }

  @Override
  public GpuInstanceInfo gpuInstanceInfo(GpuInstance gpuInstance) {
    NvmlStructs.GpuInstanceInfo i = new NvmlStructs.GpuInstanceInfo();
    call("nvmlGpuInstanceGetInfo", () -> lib.nvmlGpuInstanceGetInfo(ptr(gpuInstance), i));
    return new GpuInstanceInfo(i.id, i.profileId, i.placement.toPlacement());
  }

  @Override
  public GpuInstance createGpuInstance(Device device, int profileId, Placement placement) {
    NvmlStructs.InstancePlacement p = new NvmlStructs.InstancePlacement(placement);
    PointerByReference out = new PointerByReference();
    call(
        "nvmlDeviceCreateGpuInstanceWithPlacement",
        () -> lib.nvmlDeviceCreateGpuInstanceWithPlacement(ptr(device), profileId, p, out));
    return new GpuInstance(peer(out));
  }

  @Override
  public void destroyGpuInstance(GpuInstance gpuInstance) {
    call("nvmlGpuInstanceDestroy", () -> lib.nvmlGpuInstanceDestroy(ptr(gpuInstance)));
  }

  @Override
  public Optional<ComputeInstanceProfileInfo> computeInstanceProfileInfo(
      GpuInstance gpuInstance, int profileIndex) {
    try (var i = new NvmlStructs.ComputeInstanceProfileInfoV2()) {
      int rc =
          call(
              "nvmlGpuInstanceGetComputeInstanceProfileInfoV",
              () ->
                  lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV(
                      ptr(gpuInstance), profileIndex, ENGINE_PROFILE_SHARED, i.memory),
              NVML_ERROR_NOT_SUPPORTED,
              NVML_ERROR_INVALID_ARGUMENT);
      if (rc != 0) {
        return Optional.empty();
      }
      return Optional.of(
          new ComputeInstanceProfileInfo(
              i.id(),
              i.sliceCount(),
              i.instanceCount(),
              i.multiprocessorCount(),
              i.sharedCopyEngineCount(),
              i.sharedDecoderCount(),
              i.sharedEncoderCount(),
              i.sharedJpegCount(),
              i.sharedOfaCount(),
              i.name()));
    }
  }

  @Override
  public List<ComputeInstance> computeInstances(GpuInstance gpuInstance, int profileId) {
    return handles(
        "nvmlGpuInstanceGetComputeInstances",
        (array, count) ->
            lib.nvmlGpuInstanceGetComputeInstances(ptr(gpuInstance), profileId, array, count),
        ComputeInstance::new);
  }

  @Override
  public ComputeInstanceInfo computeInstanceInfo(ComputeInstance computeInstance) {
    NvmlStructs.ComputeInstanceInfo i = new NvmlStructs.ComputeInstanceInfo();
    call(
        "nvmlComputeInstanceGetInfo_v2",
        () -> lib.nvmlComputeInstanceGetInfo_v2(ptr(computeInstance), i));
    return new ComputeInstanceInfo(i.id, i.profileId, i.placement.toPlacement());
  }

  @Override
  public ComputeInstance createComputeInstance(GpuInstance gpuInstance, int profileId) {
    PointerByReference out = new PointerByReference();
    call(
        "nvmlGpuInstanceCreateComputeInstance",
        () -> lib.nvmlGpuInstanceCreateComputeInstance(ptr(gpuInstance), profileId, out));
    return new ComputeInstance(peer(out));
  }

  @Override
  public void destroyComputeInstance(ComputeInstance computeInstance) {
    call("nvmlComputeInstanceDestroy", () -> lib.nvmlComputeInstanceDestroy(ptr(computeInstance)));
  }

  // --- MIG devices

  @Override
  public int maxMigDeviceCount(Device device) {
    return intOut(
        "nvmlDeviceGetMaxMigDeviceCount", v -> lib.nvmlDeviceGetMaxMigDeviceCount(ptr(device), v));
  }

  @Override
  public Optional<Device> migDeviceByIndex(Device device, int index) {
    PointerByReference out = new PointerByReference();
    int rc =
        call(
            "nvmlDeviceGetMigDeviceHandleByIndex",
            () -> lib.nvmlDeviceGetMigDeviceHandleByIndex(ptr(device), index, out),
            NVML_ERROR_NOT_FOUND);
    return rc == 0 ? Optional.of(new Device(peer(out))) : Optional.empty();
  }

  @Override
  public int gpuInstanceId(Device migDevice) {
    return intOut(
        "nvmlDeviceGetGpuInstanceId", v -> lib.nvmlDeviceGetGpuInstanceId(ptr(migDevice), v));
  }

  @Override
  public int computeInstanceId(Device migDevice) {
    return intOut(
        "nvmlDeviceGetComputeInstanceId",
        v -> lib.nvmlDeviceGetComputeInstanceId(ptr(migDevice), v));
  }

  // --- telemetry

  @Override
  public Utilization utilization(Device device) {
    NvmlStructs.Utilization u = new NvmlStructs.Utilization();
    call("nvmlDeviceGetUtilizationRates", () -> lib.nvmlDeviceGetUtilizationRates(ptr(device), u));
    return new Utilization(u.gpu, u.memory);
  }

  @Override
  public int powerUsageMilliwatts(Device device) {
    return intOut("nvmlDeviceGetPowerUsage", v -> lib.nvmlDeviceGetPowerUsage(ptr(device), v));
  }

  @Override
  public int temperatureCelsius(Device device) {
    return intOut(
        "nvmlDeviceGetTemperature",
        v -> lib.nvmlDeviceGetTemperature(ptr(device), TEMPERATURE_GPU, v));
  }

  @Override
  public int smClockMhz(Device device) {
    return intOut(
        "nvmlDeviceGetClockInfo", v -> lib.nvmlDeviceGetClockInfo(ptr(device), CLOCK_SM, v));
  }

  @Override
  public long volatileEccErrors(Device device, MemoryErrorType type) {
    LongByReference count = new LongByReference();
    call(
        "nvmlDeviceGetTotalEccErrors",
        () -> lib.nvmlDeviceGetTotalEccErrors(ptr(device), type.code(), VOLATILE_ECC, count));
    return count.getValue();
  }

  @Override
  public List<ProcessInfo> computeProcesses(Device device) {
    return processes(
        "nvmlDeviceGetComputeRunningProcesses_v3",
        (count, infos) -> lib.nvmlDeviceGetComputeRunningProcesses_v3(ptr(device), count, infos));
  }

  @Override
  public List<ProcessInfo> mpsProcesses(Device device) {
    return processes(
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
        (count, infos) ->
            lib.nvmlDeviceGetMPSComputeRunningProcesses_v3(ptr(device), count, infos));
  }

  private interface ProcessCall {
    int call(IntByReference count, NvmlStructs.ProcessInfo[] infos);
  }

  /**
   * NVML's sizing protocol: room for {@link #PROCESS_ROOM} first; when more processes run, NVML
   * says how many, and the call is made again with that much room (plus some, as processes come and
   * go between the two calls).
   */
  private List<ProcessInfo> processes(String function, ProcessCall nativeCall) {
    int room = PROCESS_ROOM;
    for (int attempt = 0; ; attempt++) {
      NvmlStructs.ProcessInfo[] infos =
          (NvmlStructs.ProcessInfo[]) new NvmlStructs.ProcessInfo().toArray(room);
      IntByReference count = new IntByReference(room);
      int rc =
          call(
              function,
              () -> nativeCall.call(count, infos),
              attempt < 2 ? new NvmlReturn[] {NVML_ERROR_INSUFFICIENT_SIZE} : new NvmlReturn[0]);
      if (rc == 0) {
        return Arrays.stream(infos, 0, count.getValue())
            .map(NvmlStructs.ProcessInfo::toProcessInfo)
            .toList();
      }
      room = count.getValue() + PROCESS_ROOM;
    }
  }

  // --- events

  @Override
  public EventSet createEventSet() {
    PointerByReference out = new PointerByReference();
    call("nvmlEventSetCreate", () -> lib.nvmlEventSetCreate(out));
    return new EventSet(peer(out));
  }

  @Override
  public long supportedEventTypes(Device device) {
    LongByReference types = new LongByReference();
    call(
        "nvmlDeviceGetSupportedEventTypes",
        () -> lib.nvmlDeviceGetSupportedEventTypes(ptr(device), types));
    return types.getValue();
  }

  @Override
  public void registerEvents(Device device, long eventTypes, EventSet set) {
    call(
        "nvmlDeviceRegisterEvents",
        () -> lib.nvmlDeviceRegisterEvents(ptr(device), eventTypes, ptr(set)));
  }

  @Override
  public Optional<NvmlEvent> waitForEvent(EventSet set, Duration timeout) {
    int timeoutMs = (int) Math.clamp(timeout.toMillis(), 0, Integer.MAX_VALUE);
    NvmlStructs.EventData data = new NvmlStructs.EventData();
    int rc;
    lock.lock();
    try {
      ensureOpen();
      waiting.incrementAndGet();
    } finally {
      lock.unlock();
    }
    try {
      rc = invoke("nvmlEventSetWait_v2", () -> lib.nvmlEventSetWait_v2(ptr(set), data, timeoutMs));
    } finally {
      waiting.decrementAndGet();
    }
    if (rc == NVML_ERROR_TIMEOUT.code()) {
      return Optional.empty();
    }
    if (rc != 0) {
      throw error("nvmlEventSetWait_v2", rc);
    }
    return Optional.of(
        new NvmlEvent(
            new Device(Pointer.nativeValue(data.device)),
            data.eventType,
            data.eventData,
            data.gpuInstanceId,
            data.computeInstanceId));
  }

  @Override
  public void freeEventSet(EventSet set) {
    lock.lock();
    try {
      if (closed) {
        return; // closed under the set's last wait: the exiting process frees it
      }
    } finally {
      lock.unlock();
    }
    call("nvmlEventSetFree", () -> lib.nvmlEventSetFree(ptr(set)));
  }

  // --- plumbing

  /**
   * Calls NVML under the lock. Returns {@code 0}, or one of the {@code tolerated} codes; throws for
   * any other.
   */
  private int call(String function, IntSupplier nativeCall, NvmlReturn... tolerated) {
    lock.lock();
    try {
      ensureOpen();
      int rc = invoke(function, nativeCall);
      if (rc == 0 || Arrays.stream(tolerated).anyMatch(t -> t.code() == rc)) {
        return rc;
      }
      throw error(function, rc);
    } finally {
      lock.unlock();
    }
  }

  /** Calls NVML; a symbol this library lacks reads as {@code NVML_ERROR_FUNCTION_NOT_FOUND}. */
  private static int invoke(String function, IntSupplier nativeCall) {
    try {
      return nativeCall.getAsInt();
    } catch (UnsatisfiedLinkError e) {
      return NVML_ERROR_FUNCTION_NOT_FOUND.code();
    }
  }

  private interface IntOutCall {
    int call(IntByReference out);
  }

  private int intOut(String function, IntOutCall nativeCall) {
    IntByReference out = new IntByReference();
    call(function, () -> nativeCall.call(out));
    return out.getValue();
  }

  private interface HandleArrayCall {
    int call(Pointer array, IntByReference count);
  }

  private <H> List<H> handles(String function, HandleArrayCall nativeCall, LongFunction<H> wrap) {
    try (Memory array = new Memory((long) MAX_INSTANCES * Native.POINTER_SIZE)) {
      array.clear();
      IntByReference count = new IntByReference();
      call(function, () -> nativeCall.call(array, count));
      List<H> out = new ArrayList<>(count.getValue());
      for (int i = 0; i < count.getValue(); i++) {
        out.add(wrap.apply(Pointer.nativeValue(array.getPointer((long) i * Native.POINTER_SIZE))));
      }
      return List.copyOf(out);
    }
  }

  private NvmlException error(String function, int rc) {
    String text;
    try {
      text = lib.nvmlErrorString(rc);
    } catch (UnsatisfiedLinkError e) {
      text = "";
    }
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND.code()) {
      text = (text == null || text.isEmpty() ? "" : text + "; ") + "in " + libraryPath;
    }
    return new NvmlException(function, rc, text);
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("NVML at " + libraryPath + " is shut down");
    }
  }

  private static Pointer ptr(NvmlHandle handle) {
    return new Pointer(handle.peer());
  }

  private static long peer(PointerByReference out) {
    return Pointer.nativeValue(out.getValue());
  }
}
