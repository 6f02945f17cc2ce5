package dev.tessera.plugin.nvml;

import dev.tessera.plugin.nvml.NvmlHandle.ComputeInstance;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.NvmlHandle.EventSet;
import dev.tessera.plugin.nvml.NvmlHandle.GpuInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link Nvml} for unit tests: GPUs are described with {@link FakeGpu}, MIG instances
 * can be created and destroyed, events are queued with {@link #fire}, and {@link #failNext} makes a
 * call fail once with an NVML code.
 */
public final class FakeNvml implements Nvml {
  private static final int MAX_MIG_DEVICES = 7;

  private final List<FakeGpu> gpus = new ArrayList<>();
  private final Map<String, NvmlReturn> failures = new HashMap<>();
  private final Map<Long, LinkedBlockingQueue<NvmlEvent>> eventSets = new ConcurrentHashMap<>();
  private final Map<Long, Long> registrations = new ConcurrentHashMap<>();
  private String driverVersion = "580.95.05";
  private int cudaDriverVersion = 13000;
  private long nextEventSet = 1;
  private boolean closed;

  /** A GPU as the fake reports it; fields are set by the test. */
  public static final class FakeGpu {
    public String uuid;
    public String name = "NVIDIA H100 80GB HBM3";
    public int brand = 14;
    public int architecture = 9;
    public ComputeCapability computeCapability = new ComputeCapability(9, 0);
    public long memoryBytes = 80L << 30;
    public String pciBusId;
    public Integer numaNode = 0;
    public int minor;
    public Utilization utilization = new Utilization(0, 0);
    public int powerMilliwatts = 70_000;
    public int temperatureCelsius = 35;
    public int smClockMhz = 1980;
    public long correctedEcc;
    public long uncorrectedEcc;
    public final List<ProcessInfo> computeProcesses = new ArrayList<>();
    public final List<ProcessInfo> mpsProcesses = new ArrayList<>();

    /** {@code null}: MIG unsupported. */
    public MigModeState migMode;

    /** By {@code NVML_GPU_INSTANCE_PROFILE_*} index. */
    public final Map<Integer, GpuInstanceProfileInfo> profiles = new TreeMap<>();

    /** By profile id. */
    public final Map<Integer, List<Placement>> placements = new HashMap<>();

    final TreeMap<Integer, FakeGi> gis = new TreeMap<>();

    public FakeGpu(int minor) {
      this.minor = minor;
      this.uuid = "GPU-fake-" + minor;
      this.pciBusId = "00000000:%02X:00.0".formatted(0x18 + minor);
    }

    public FakeGpu profile(int index, GpuInstanceProfileInfo info, Placement... placements) {
      profiles.put(index, info);
      this.placements.put(info.id(), List.of(placements));
      return this;
    }
  }

  record FakeGi(int id, int profileId, Placement placement, TreeMap<Integer, FakeCi> cis) {}

  record FakeCi(int id, int profileId, String uuid) {}

  public FakeNvml add(FakeGpu gpu) {
    gpus.add(gpu);
    return this;
  }

  public FakeNvml versions(String driver, int cuda) {
    this.driverVersion = driver;
    this.cudaDriverVersion = cuda;
    return this;
  }

  /** The next call of {@code function} fails with {@code code}. */
  public FakeNvml failNext(String function, NvmlReturn code) {
    failures.put(function, code);
    return this;
  }

  /** Queues an event for every set the GPU's events of that type are registered with. */
  public void fire(int gpuIndex, long type, long data) {
    Device device = deviceByIndex(gpuIndex);
    eventSets.forEach(
        (set, queue) -> {
          if ((registrations.getOrDefault(key(set, gpuIndex), 0L) & type) != 0) {
            queue.add(new NvmlEvent(device, type, data, 0xFFFFFFFF, 0xFFFFFFFF));
          }
        });
  }

  public boolean closed() {
    return closed;
  }

  // --- handles: bits 16+ GPU index + 1, bits 8..15 GI id + 1, bits 0..7 CI id + 1

  private static long peer(int gpu, int gi, int ci) {
    return ((long) (gpu + 1) << 16) | ((long) (gi + 1) << 8) | (ci + 1);
  }

  private int gpuIndex(NvmlHandle h) {
    int index = (int) (h.peer() >> 16) - 1;
    if (index < 0 || index >= gpus.size()) {
      throw new NvmlException("fake", NvmlReturn.NVML_ERROR_INVALID_ARGUMENT.code(), "bad handle");
    }
    return index;
  }

  private FakeGpu gpu(NvmlHandle h) {
    return gpus.get(gpuIndex(h));
  }

  private static int giId(NvmlHandle h) {
    return (int) ((h.peer() >> 8) & 0xFF) - 1;
  }

  private static int ciId(NvmlHandle h) {
    return (int) (h.peer() & 0xFF) - 1;
  }

  private FakeGi gi(NvmlHandle h) {
    FakeGi gi = gpu(h).gis.get(giId(h));
    if (gi == null) {
      throw fail("fake", NvmlReturn.NVML_ERROR_NOT_FOUND);
    }
    return gi;
  }

  private static long key(long set, int gpu) {
    return set * 1000 + gpu;
  }

  private void check(String function) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    NvmlReturn failure = failures.remove(function);
    if (failure != null) {
      throw fail(function, failure);
    }
  }

  private static NvmlException fail(String function, NvmlReturn code) {
    return new NvmlException(function, code.code(), code.name().toLowerCase());
  }

  // --- Nvml

  @Override
  public String driverVersion() {
    check("nvmlSystemGetDriverVersion");
    return driverVersion;
  }

  @Override
  public int cudaDriverVersion() {
    check("nvmlSystemGetCudaDriverVersion");
    return cudaDriverVersion;
  }

  @Override
  public String nvmlVersion() {
    check("nvmlSystemGetNVMLVersion");
    return "13." + driverVersion;
  }

  @Override
  public int deviceCount() {
    check("nvmlDeviceGetCount_v2");
    return gpus.size();
  }

  @Override
  public Device deviceByIndex(int index) {
    check("nvmlDeviceGetHandleByIndex_v2");
    if (index < 0 || index >= gpus.size()) {
      throw fail("nvmlDeviceGetHandleByIndex_v2", NvmlReturn.NVML_ERROR_INVALID_ARGUMENT);
    }
    return new Device(peer(index, -1, -1));
  }

  @Override
  public Device deviceByUuid(String uuid) {
    check("nvmlDeviceGetHandleByUUID");
    for (int i = 0; i < gpus.size(); i++) {
      if (gpus.get(i).uuid.equals(uuid)) {
        return new Device(peer(i, -1, -1));
      }
    }
    throw fail("nvmlDeviceGetHandleByUUID", NvmlReturn.NVML_ERROR_NOT_FOUND);
  }

  @Override
  public String uuid(Device device) {
    check("nvmlDeviceGetUUID");
    if (giId(device) >= 0) {
      return gi(device).cis().get(ciId(device)).uuid();
    }
    return gpu(device).uuid;
  }

  @Override
  public String name(Device device) {
    check("nvmlDeviceGetName");
    return gpu(device).name;
  }

  @Override
  public int brand(Device device) {
    check("nvmlDeviceGetBrand");
    return gpu(device).brand;
  }

  @Override
  public int architecture(Device device) {
    check("nvmlDeviceGetArchitecture");
    return gpu(device).architecture;
  }

  @Override
  public ComputeCapability cudaComputeCapability(Device device) {
    check("nvmlDeviceGetCudaComputeCapability");
    return gpu(device).computeCapability;
  }

  @Override
  public MemoryInfo memoryInfo(Device device) {
    check("nvmlDeviceGetMemoryInfo_v2");
    long total =
        giId(device) >= 0
            ? profileById(gpu(device), gi(device).profileId()).memorySizeMb() << 20
            : gpu(device).memoryBytes;
    return new MemoryInfo(total, 0, total, 0);
  }

  @Override
  public Utilization utilization(Device device) {
    check("nvmlDeviceGetUtilizationRates");
    return gpu(device).utilization;
  }

  @Override
  public int powerUsageMilliwatts(Device device) {
    check("nvmlDeviceGetPowerUsage");
    return gpu(device).powerMilliwatts;
  }

  @Override
  public int temperatureCelsius(Device device) {
    check("nvmlDeviceGetTemperature");
    return gpu(device).temperatureCelsius;
  }

  @Override
  public int smClockMhz(Device device) {
    check("nvmlDeviceGetClockInfo");
    return gpu(device).smClockMhz;
  }

  @Override
  public long volatileEccErrors(Device device, MemoryErrorType type) {
    check("nvmlDeviceGetTotalEccErrors");
    return type == MemoryErrorType.CORRECTED
        ? gpu(device).correctedEcc
        : gpu(device).uncorrectedEcc;
  }

  @Override
  public List<ProcessInfo> computeProcesses(Device device) {
    check("nvmlDeviceGetComputeRunningProcesses_v3");
    return List.copyOf(gpu(device).computeProcesses);
  }

  @Override
  public List<ProcessInfo> mpsProcesses(Device device) {
    check("nvmlDeviceGetMPSComputeRunningProcesses_v3");
    return List.copyOf(gpu(device).mpsProcesses);
  }

  @Override
  public String pciBusId(Device device) {
    check("nvmlDeviceGetPciInfo_v3");
    return gpu(device).pciBusId;
  }

  @Override
  public OptionalInt numaNode(Device device) {
    check("nvmlDeviceGetNumaNodeId");
    Integer node = gpu(device).numaNode;
    return node == null ? OptionalInt.empty() : OptionalInt.of(node);
  }

  @Override
  public int minorNumber(Device device) {
    check("nvmlDeviceGetMinorNumber");
    return gpu(device).minor;
  }

  @Override
  public Optional<MigModeState> migMode(Device device) {
    check("nvmlDeviceGetMigMode");
    return Optional.ofNullable(gpu(device).migMode);
  }

  @Override
  public int setMigMode(Device device, boolean enabled) {
    check("nvmlDeviceSetMigMode");
    FakeGpu gpu = gpu(device);
    if (gpu.migMode == null) {
      throw fail("nvmlDeviceSetMigMode", NvmlReturn.NVML_ERROR_NOT_SUPPORTED);
    }
    gpu.migMode = new MigModeState(enabled, enabled);
    return 0;
  }

  @Override
  public Optional<GpuInstanceProfileInfo> gpuInstanceProfileInfo(Device device, int profileIndex) {
    check("nvmlDeviceGetGpuInstanceProfileInfoV");
    FakeGpu gpu = gpu(device);
    return gpu.migMode == null
        ? Optional.empty()
        : Optional.ofNullable(gpu.profiles.get(profileIndex));
  }

  private static GpuInstanceProfileInfo profileById(FakeGpu gpu, int profileId) {
    return gpu.profiles.values().stream()
        .filter(p -> p.id() == profileId)
        .findFirst()
        .orElseThrow(() -> fail("fake", NvmlReturn.NVML_ERROR_INVALID_ARGUMENT));
  }

  @Override
  public List<Placement> gpuInstancePossiblePlacements(Device device, int profileId) {
    check("nvmlDeviceGetGpuInstancePossiblePlacements_v2");
    return gpu(device).placements.getOrDefault(profileId, List.of());
  }

  @Override
  public List<GpuInstance> gpuInstances(Device device, int profileId) {
    check("nvmlDeviceGetGpuInstances");
    int index = gpuIndex(device);
    return gpu(device).gis.values().stream()
        .filter(gi -> gi.profileId() == profileId)
        .map(gi -> new GpuInstance(peer(index, gi.id(), -1)))
        .toList();
  }

  @Override
  public GpuInstance gpuInstanceById(Device device, int gpuInstanceId) {
    check("nvmlDeviceGetGpuInstanceById");
    if (!gpu(device).gis.containsKey(gpuInstanceId)) {
      throw fail("nvmlDeviceGetGpuInstanceById", NvmlReturn.NVML_ERROR_NOT_FOUND);
    }
    return new GpuInstance(peer(gpuIndex(device), gpuInstanceId, -1));
  }

  @Override
  public GpuInstanceInfo gpuInstanceInfo(GpuInstance gpuInstance) {
    check("nvmlGpuInstanceGetInfo");
    FakeGi gi = gi(gpuInstance);
    return new GpuInstanceInfo(gi.id(), gi.profileId(), gi.placement());
  }

  @Override
  public GpuInstance createGpuInstance(Device device, int profileId, Placement placement) {
    check("nvmlDeviceCreateGpuInstanceWithPlacement");
    FakeGpu gpu = gpu(device);
    boolean allowed = gpu.placements.getOrDefault(profileId, List.of()).contains(placement);
    boolean overlaps =
        gpu.gis.values().stream()
            .anyMatch(
                gi ->
                    gi.placement().start() < placement.start() + placement.size()
                        && placement.start() < gi.placement().start() + gi.placement().size());
    if (!allowed || overlaps) {
      throw fail(
          "nvmlDeviceCreateGpuInstanceWithPlacement", NvmlReturn.NVML_ERROR_INSUFFICIENT_RESOURCES);
    }
    int id = gpu.gis.isEmpty() ? 1 : gpu.gis.lastKey() + 1;
    gpu.gis.put(id, new FakeGi(id, profileId, placement, new TreeMap<>()));
    return new GpuInstance(peer(gpuIndex(device), id, -1));
  }

  @Override
  public void destroyGpuInstance(GpuInstance gpuInstance) {
    check("nvmlGpuInstanceDestroy");
    if (!gi(gpuInstance).cis().isEmpty()) {
      throw fail("nvmlGpuInstanceDestroy", NvmlReturn.NVML_ERROR_IN_USE);
    }
    gpu(gpuInstance).gis.remove(giId(gpuInstance));
  }

  @Override
  public Optional<ComputeInstanceProfileInfo> computeInstanceProfileInfo(
      GpuInstance gpuInstance, int profileIndex) {
    check("nvmlGpuInstanceGetComputeInstanceProfileInfoV");
    GpuInstanceProfileInfo gi = profileById(gpu(gpuInstance), gi(gpuInstance).profileId());
    int slices = profileIndex + 1;
    if (slices > gi.sliceCount()) {
      return Optional.empty();
    }
    return Optional.of(
        new ComputeInstanceProfileInfo(
            profileIndex,
            slices,
            gi.sliceCount() / slices,
            gi.multiprocessorCount() * slices / gi.sliceCount(),
            gi.copyEngineCount(),
            gi.decoderCount(),
            gi.encoderCount(),
            gi.jpegCount(),
            gi.ofaCount(),
            slices + "c." + gi.name()));
  }

  @Override
  public List<ComputeInstance> computeInstances(GpuInstance gpuInstance, int profileId) {
    check("nvmlGpuInstanceGetComputeInstances");
    int gpu = gpuIndex(gpuInstance);
    FakeGi gi = gi(gpuInstance);
    return gi.cis().values().stream()
        .filter(ci -> ci.profileId() == profileId)
        .map(ci -> new ComputeInstance(peer(gpu, gi.id(), ci.id())))
        .toList();
  }

  @Override
  public ComputeInstanceInfo computeInstanceInfo(ComputeInstance computeInstance) {
    check("nvmlComputeInstanceGetInfo_v2");
    FakeCi ci = gi(computeInstance).cis().get(ciId(computeInstance));
    if (ci == null) {
      throw fail("nvmlComputeInstanceGetInfo_v2", NvmlReturn.NVML_ERROR_NOT_FOUND);
    }
    return new ComputeInstanceInfo(ci.id(), ci.profileId(), new Placement(0, 1));
  }

  @Override
  public ComputeInstance createComputeInstance(GpuInstance gpuInstance, int profileId) {
    check("nvmlGpuInstanceCreateComputeInstance");
    int gpu = gpuIndex(gpuInstance);
    FakeGi gi = gi(gpuInstance);
    int id = gi.cis().isEmpty() ? 0 : gi.cis().lastKey() + 1;
    gi.cis().put(id, new FakeCi(id, profileId, "MIG-fake-%d-%d-%d".formatted(gpu, gi.id(), id)));
    return new ComputeInstance(peer(gpu, gi.id(), id));
  }

  @Override
  public void destroyComputeInstance(ComputeInstance computeInstance) {
    check("nvmlComputeInstanceDestroy");
    if (gi(computeInstance).cis().remove(ciId(computeInstance)) == null) {
      throw fail("nvmlComputeInstanceDestroy", NvmlReturn.NVML_ERROR_NOT_FOUND);
    }
  }

  @Override
  public int maxMigDeviceCount(Device device) {
    check("nvmlDeviceGetMaxMigDeviceCount");
    return gpu(device).migMode == null ? 0 : MAX_MIG_DEVICES;
  }

  @Override
  public Optional<Device> migDeviceByIndex(Device device, int index) {
    check("nvmlDeviceGetMigDeviceHandleByIndex");
    int gpu = gpuIndex(device);
    Map<Integer, Device> slots = new LinkedHashMap<>();
    for (FakeGi gi : gpu(device).gis.values()) {
      for (FakeCi ci : gi.cis().values()) {
        slots.put(slots.size(), new Device(peer(gpu, gi.id(), ci.id())));
      }
    }
    return Optional.ofNullable(slots.get(index));
  }

  @Override
  public int gpuInstanceId(Device migDevice) {
    check("nvmlDeviceGetGpuInstanceId");
    return giId(migDevice);
  }

  @Override
  public int computeInstanceId(Device migDevice) {
    check("nvmlDeviceGetComputeInstanceId");
    return ciId(migDevice);
  }

  @Override
  public EventSet createEventSet() {
    check("nvmlEventSetCreate");
    long id = nextEventSet++;
    eventSets.put(id, new LinkedBlockingQueue<>());
    return new EventSet(id);
  }

  @Override
  public long supportedEventTypes(Device device) {
    check("nvmlDeviceGetSupportedEventTypes");
    return NvmlEventType.SINGLE_BIT_ECC_ERROR | NvmlEventType.HEALTH;
  }

  @Override
  public void registerEvents(Device device, long eventTypes, EventSet set) {
    check("nvmlDeviceRegisterEvents");
    registrations.merge(key(set.peer(), gpuIndex(device)), eventTypes, (a, b) -> a | b);
  }

  @Override
  public Optional<NvmlEvent> waitForEvent(EventSet set, Duration timeout) {
    check("nvmlEventSetWait_v2");
    try {
      return Optional.ofNullable(
          eventSets.get(set.peer()).poll(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public void freeEventSet(EventSet set) {
    check("nvmlEventSetFree");
    eventSets.remove(set.peer());
  }

  @Override
  public void close() {
    closed = true;
  }
}
