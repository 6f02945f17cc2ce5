package dev.tessera.demo;

import dev.tessera.api.DeviceName;
import dev.tessera.api.DriverNames;
import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.DesiredSlice;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.checkpoint.CheckpointFile;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsPaths;
import dev.tessera.plugin.sharing.OsProcessRunner;
import dev.tessera.plugin.sharing.ProcessMpsDaemons;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a node must never be left with, each kind of leak or inconsistency one method that names
 * what it found (empty: none): device state without a live claim (MIG devices, MPS daemons, GPU
 * settings, CDI specs, checkpoint entries), a device prepared for two claims that may not share it,
 * a claim whose status and checkpoint disagree, and a GpuNode or pool that is not what the GPUs
 * are. "Live" is what the API server has now; the hardware is the simulator's state file.
 */
final class NodeLeaks {
  private static final String CDI_PREFIX = "k8s." + DriverNames.DEFAULT_DRIVER + "-claim_";

  private final KubernetesClient client;
  private final String nodeName;
  private final Path pluginDir;
  private final Path cdiDir;
  private final Path driverRoot;
  private final SimulatedGpus initial;
  private final JsonMapper json = JsonMapper.builder().build();

  /**
   * @param initial the GPUs as the node was laid out: its MIG mode and an admin's MIG devices are
   *     no claim's and stay
   */
  NodeLeaks(Cluster cluster, KubernetesClient client, Path driverRoot, SimulatedGpus initial) {
    this.client = client;
    this.nodeName = cluster.nodeName();
    this.pluginDir = cluster.pluginsDir().resolve(DriverNames.DEFAULT_DRIVER);
    this.cdiDir = cluster.cdiDir();
    this.driverRoot = driverRoot;
    this.initial = initial;
  }

  /** The node as it is now, read once for all the checks. */
  record View(
      Map<String, ResourceClaim> liveClaims,
      CheckpointFile checkpoint,
      SimulatedGpus gpus,
      Map<String, Long> mpsDaemons,
      Set<String> cdiSpecClaims,
      List<Pod> runningPods) {}

  View view() throws IOException {
    Map<String, ResourceClaim> live =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inAnyNamespace()
            .list()
            .getItems()
            .stream()
            .collect(Collectors.toMap(c -> c.getMetadata().getUid(), c -> c, (a, b) -> a));
    List<Pod> running =
        client.pods().inAnyNamespace().list().getItems().stream()
            .filter(p -> nodeName.equals(p.getSpec().getNodeName()))
            .filter(p -> "Running".equals(p.getStatus().getPhase()))
            .toList();
    return new View(
        live, checkpoint(), SimulatedGpus.read(driverRoot), mpsDaemons(), cdiSpecClaims(), running);
  }

  /** Every finding of every check, for the node offered as {@code offering}. */
  List<String> all(Offering offering) throws IOException {
    View v = view();
    var found = new ArrayList<String>();
    found.addAll(checkpointEntriesWithoutClaim(v));
    found.addAll(cdiSpecsWithoutClaim(v));
    found.addAll(mpsDaemonsWithoutClaim(v));
    found.addAll(mpsClaimsWithoutDaemon(v));
    found.addAll(migDevicesWithoutClaim(v));
    found.addAll(gpuSettingsWithoutClaim(v));
    found.addAll(doubleAllocations(v));
    found.addAll(claimsTheCheckpointDisagreesWith(v));
    found.addAll(inventoryMismatches(v));
    found.addAll(sliceMismatches(offering));
    return found;
  }

  /**
   * Which MPS control daemons run on the node: device UUID to pid. The one place that knows where
   * they are: the campaign runs the plugin as host processes, whose daemons are its children
   * ({@link ProcessMpsDaemons}: the pid file each daemon writes into its pipe directory under the
   * plugin's MPS dir, {@code <plugin dir>/mps/<device UUID>/pipe/}, counted when its process is
   * alive and not a zombie); the chart's daemons in pods of their own are {@code
   * MpsDaemonPodsE2E}'s.
   */
  Map<String, Long> mpsDaemons() throws IOException {
    var daemons =
        new ProcessMpsDaemons(
            new MpsPaths(pluginDir.resolve("mps")),
            new DriverTools(driverRoot, new OsProcessRunner(Duration.ofSeconds(10))));
    var running = new TreeMap<String, Long>();
    for (String device : daemons.known()) {
      daemons.pid(device).ifPresent(pid -> running.put(device, pid));
    }
    return running;
  }

  /** The running MPS daemons as processes, for a kill that spares them. */
  List<ProcessHandle> mpsDaemonProcesses() throws IOException {
    return mpsDaemons().values().stream()
        .map(ProcessHandle::of)
        .flatMap(java.util.Optional::stream)
        .toList();
  }

  List<String> checkpointEntriesWithoutClaim(View v) {
    var found = new ArrayList<String>();
    v.checkpoint()
        .claims()
        .forEach(
            (uid, entry) -> {
              String who = entry.namespace() + "/" + entry.name() + " (" + uid + ")";
              if (!v.liveClaims().containsKey(uid)) {
                found.add(
                    "checkpoint entry of claim " + who + ", which the API server no longer has");
              } else if (entry.state() != CheckpointFile.State.PrepareCompleted) {
                found.add("checkpoint entry of claim " + who + " still " + entry.state());
              }
            });
    return found;
  }

  List<String> cdiSpecsWithoutClaim(View v) {
    var found = new ArrayList<String>();
    for (String uid : v.cdiSpecClaims()) {
      if (!v.liveClaims().containsKey(uid)) {
        found.add("CDI spec of claim " + uid + ", which the API server no longer has");
      } else if (!v.checkpoint().claims().containsKey(uid)) {
        found.add("CDI spec of claim " + uid + " without a checkpoint entry");
      }
    }
    return found;
  }

  List<String> mpsDaemonsWithoutClaim(View v) {
    Set<String> wanted = devicesShared(v, "MPS");
    return v.mpsDaemons().entrySet().stream()
        .filter(d -> !wanted.contains(d.getKey()))
        .map(
            d ->
                "MPS daemon (pid "
                    + d.getValue()
                    + ") of "
                    + d.getKey()
                    + " without a live MPS claim")
        .toList();
  }

  List<String> mpsClaimsWithoutDaemon(View v) {
    return devicesShared(v, "MPS").stream()
        .filter(device -> !v.mpsDaemons().containsKey(device))
        .map(device -> "device " + device + " prepared for MPS without a running MPS daemon")
        .toList();
  }

  /** GPU instances that are neither an admin's (there at the start) nor made for a live claim. */
  List<String> migDevicesWithoutClaim(View v) {
    var found = new ArrayList<String>();
    for (SimulatedGpus.Gpu gpu : v.gpus().gpus()) {
      for (SimulatedGpus.GpuInstance gi : gpu.instances()) {
        boolean admins = initialGpu(gpu.index()).instances().stream().anyMatch(i -> same(i, gi));
        boolean claims =
            liveEntries(v)
                .flatMap(e -> e.createdMig().stream())
                .anyMatch(
                    m ->
                        gpu.uuid().equals(m.gpuUuid())
                            && m.profileId() == gi.profileId()
                            && m.placement().start() == gi.start());
        if (!admins && !claims) {
          found.add(
              "MIG device (GPU instance %d, profile id %d at slice %d) on GPU %d without a live claim"
                  .formatted(gi.id(), gi.profileId(), gi.start(), gpu.index()));
        }
      }
    }
    return found;
  }

  /**
   * MIG mode, compute mode and time-slice changed from the layout with no live claim needing it.
   */
  List<String> gpuSettingsWithoutClaim(View v) {
    var found = new ArrayList<String>();
    for (SimulatedGpus.Gpu gpu : v.gpus().gpus()) {
      boolean migMade =
          liveEntries(v)
              .flatMap(e -> e.createdMig().stream())
              .anyMatch(m -> gpu.uuid().equals(m.gpuUuid()));
      if (gpu.migEnabled() && !initialGpu(gpu.index()).migEnabled() && !migMade) {
        found.add(
            "GPU " + gpu.index() + " left in MIG mode with no MIG device made for a live claim");
      }
      if (gpu.computeMode() != 0 && !devicesShared(v, "MPS").contains(gpu.uuid())) {
        found.add(
            "GPU "
                + gpu.index()
                + " left in compute mode "
                + gpu.computeMode()
                + " without an MPS claim");
      }
      if (gpu.timeSlice() != 0 && !devicesShared(v, "TimeSlicing").contains(gpu.uuid())) {
        found.add(
            "GPU "
                + gpu.index()
                + " left with time-slice "
                + gpu.timeSlice()
                + " without a time-sliced claim");
      }
    }
    return found;
  }

  /**
   * The same silicon prepared for two claims that may not share it: one device name twice (unless
   * both are memory shares of a {@code shared} GPU), a whole GPU beside anything else on it, or two
   * MIG devices whose placements overlap. Admin access shares everything and is left out.
   */
  List<String> doubleAllocations(View v) {
    record Held(String claim, String device, int gpu, boolean share, int start, int size) {
      boolean whole() {
        return size < 0;
      }
    }
    var held = new ArrayList<Held>();
    v.checkpoint()
        .claims()
        .forEach(
            (uid, entry) -> {
              for (CheckpointFile.Device d : entry.devices()) {
                if (d.adminAccess()) {
                  continue;
                }
                int start = -1;
                int size = -1;
                int gpu;
                switch (DeviceName.parse(d.device())) {
                  case DeviceName.Gpu g -> gpu = g.minor();
                  case DeviceName.Mig m -> {
                    gpu = m.parentMinor();
                    start = m.placementStart();
                    size = 1; // an admin's device: distinct names are distinct instances
                    for (CheckpointFile.Mig made : entry.createdMig()) {
                      if (made.device().equals(d.device())) {
                        size = made.placement().size();
                      }
                    }
                  }
                }
                held.add(new Held(uid, d.device(), gpu, d.shareId() != null, start, size));
              }
            });
    var found = new ArrayList<String>();
    for (int i = 0; i < held.size(); i++) {
      for (int j = i + 1; j < held.size(); j++) {
        Held a = held.get(i);
        Held b = held.get(j);
        if (a.claim().equals(b.claim()) || a.gpu() != b.gpu() || (a.share() && b.share())) {
          continue;
        }
        boolean clash =
            a.device().equals(b.device())
                || a.whole()
                || b.whole()
                || (a.start() < b.start() + b.size() && b.start() < a.start() + a.size());
        if (clash) {
          found.add(
              "GPU %d prepared twice: %s for claim %s and %s for claim %s"
                  .formatted(a.gpu(), a.device(), a.claim(), b.device(), b.claim()));
        }
      }
    }
    return found;
  }

  /**
   * A live claim whose checkpoint entry holds other devices than its allocation names, and a
   * running pod whose claim the plugin has no completed entry of (it would never be unprepared).
   */
  List<String> claimsTheCheckpointDisagreesWith(View v) {
    var found = new ArrayList<String>();
    v.checkpoint()
        .claims()
        .forEach(
            (uid, entry) -> {
              ResourceClaim claim = v.liveClaims().get(uid);
              if (claim == null || entry.state() != CheckpointFile.State.PrepareCompleted) {
                return;
              }
              Set<String> allocated = allocatedDevices(claim);
              Set<String> prepared =
                  entry.devices().stream()
                      .map(CheckpointFile.Device::device)
                      .collect(Collectors.toSet());
              if (!allocated.equals(prepared)) {
                found.add(
                    "claim %s/%s allocated %s but prepared %s"
                        .formatted(entry.namespace(), entry.name(), allocated, prepared));
              }
            });
    var byName =
        v.liveClaims().values().stream()
            .collect(
                Collectors.toMap(
                    c -> c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(),
                    c -> c,
                    (a, b) -> a));
    for (Pod pod : v.runningPods()) {
      if (pod.getStatus().getResourceClaimStatuses() == null) {
        continue;
      }
      for (var status : pod.getStatus().getResourceClaimStatuses()) {
        ResourceClaim claim =
            byName.get(pod.getMetadata().getNamespace() + "/" + status.getResourceClaimName());
        if (claim == null || allocatedDevices(claim).isEmpty()) {
          continue;
        }
        var entry = v.checkpoint().claims().get(claim.getMetadata().getUid());
        if (entry == null || entry.state() != CheckpointFile.State.PrepareCompleted) {
          found.add(
              "pod %s/%s runs with claim %s, which the plugin's checkpoint does not hold prepared"
                  .formatted(
                      pod.getMetadata().getNamespace(),
                      pod.getMetadata().getName(),
                      status.getResourceClaimName()));
        }
      }
    }
    return found;
  }

  /**
   * The GpuNode's GPUs against the simulator's: the same UUIDs, MIG modes and MIG devices. The MIG
   * devices made for live claims are left out on both sides, and so is the MIG mode of a GPU that
   * has some: the GpuNode need not follow dynamic MIG while its claims live (decision 18), but once
   * they are gone it must say what the GPU is, or the next offering renders from a GPU that is not.
   */
  List<String> inventoryMismatches(View v) throws IOException {
    NodeInventory reported = reportedInventory();
    if (reported == null) {
      return List.of("the node has no GpuNode inventory");
    }
    var found = new ArrayList<String>();
    for (SimulatedGpus.Gpu gpu : v.gpus().gpus()) {
      var match = reported.gpus().stream().filter(g -> g.uuid().equals(gpu.uuid())).findFirst();
      if (match.isEmpty()) {
        found.add("GPU " + gpu.index() + " (" + gpu.uuid() + ") missing from the GpuNode");
        continue;
      }
      Set<String> claimsMade =
          liveEntries(v)
              .flatMap(e -> e.createdMig().stream())
              .filter(m -> gpu.uuid().equals(m.gpuUuid()))
              .map(m -> m.profileId() + "@" + m.placement().start())
              .collect(Collectors.toSet());
      boolean enabled = match.get().migMode() == MigMode.ENABLED;
      if (claimsMade.isEmpty() && enabled != gpu.migEnabled()) {
        found.add(
            "GpuNode says GPU %d's MIG mode is %s, the GPU says %s"
                .formatted(gpu.index(), match.get().migMode(), gpu.migEnabled() ? "on" : "off"));
      }
      Set<String> reportedMig =
          match.get().migDevices().stream()
              .map(m -> m.profileId() + "@" + m.placement().start())
              .filter(m -> !claimsMade.contains(m))
              .collect(Collectors.toSet());
      Set<String> actualMig =
          gpu.instances().stream()
              .map(i -> i.profileId() + "@" + i.start())
              .filter(m -> !claimsMade.contains(m))
              .collect(Collectors.toSet());
      if (!reportedMig.equals(actualMig)) {
        found.add(
            "GpuNode says GPU %d has MIG devices %s (profile id@slice), the GPU has %s"
                .formatted(gpu.index(), reportedMig, actualMig));
      }
    }
    if (reported.gpus().size() != v.gpus().gpus().size()) {
      found.add(
          "GpuNode reports %d GPUs, the node has %d"
              .formatted(reported.gpus().size(), v.gpus().gpus().size()));
    }
    return found;
  }

  /**
   * The pool against what the controller renders from the GpuNode for the offering: complete (one
   * generation, every slice there) and the same device names.
   */
  List<String> sliceMismatches(Offering offering) throws IOException {
    NodeInventory reported = reportedInventory();
    if (reported == null) {
      return List.of("no GpuNode inventory to publish");
    }
    Set<String> rendered =
        new SliceRenderer()
            .render(reported, offering).stream()
                .flatMap(
                    s ->
                        s instanceof DesiredSlice.Devices d ? d.devices().stream() : Stream.empty())
                .map(d -> d.getName())
                .collect(Collectors.toSet());
    var slices =
        client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
            .filter(s -> DriverNames.DEFAULT_DRIVER.equals(s.getSpec().getDriver()))
            .filter(s -> nodeName.equals(s.getSpec().getPool().getName()))
            .toList();
    if (slices.isEmpty()) {
      return List.of("the node's pool is not published");
    }
    long generation = slices.get(0).getSpec().getPool().getGeneration();
    if (slices.size() != slices.get(0).getSpec().getPool().getResourceSliceCount()
        || slices.stream().anyMatch(s -> s.getSpec().getPool().getGeneration() != generation)) {
      return List.of(
          "the node's pool is not complete ("
              + slices.size()
              + " slices: "
              + slices.stream()
                  .map(
                      s ->
                          s.getMetadata().getName()
                              + " generation "
                              + s.getSpec().getPool().getGeneration()
                              + " of "
                              + s.getSpec().getPool().getResourceSliceCount())
                  .toList()
              + ")");
    }
    Set<String> published =
        slices.stream()
            .filter(s -> s.getSpec().getDevices() != null)
            .flatMap(s -> s.getSpec().getDevices().stream())
            .map(d -> d.getName())
            .collect(Collectors.toSet());
    if (published.equals(rendered)) {
      return List.of();
    }
    var missing = new HashSet<>(rendered);
    missing.removeAll(published);
    var extra = new HashSet<>(published);
    extra.removeAll(rendered);
    return List.of(
        "the pool (%s) lacks %s and has %s beyond what the GpuNode renders to"
            .formatted(offering.label(), missing, extra));
  }

  private NodeInventory reportedInventory() {
    var gpuNode =
        client.genericKubernetesResources(GpuNodeReporter.GPU_NODES).withName(nodeName).get();
    if (gpuNode == null
        || !(gpuNode.getAdditionalProperties().get("status") instanceof Map<?, ?> s)) {
      return null;
    }
    return s.get("inventory") == null
        ? null
        : json.convertValue(
            InventoryStatus.expand((Map<?, ?>) s.get("inventory")), NodeInventory.class);
  }

  /** The UUIDs of devices prepared with {@code sharing} for live claims. */
  private static Set<String> devicesShared(View v, String sharing) {
    return liveEntries(v)
        .flatMap(e -> e.devices().stream())
        .filter(d -> !d.adminAccess() && sharing.equals(d.sharing()))
        .map(CheckpointFile.Device::uuid)
        .filter(Objects::nonNull)
        .collect(Collectors.toSet());
  }

  private static Stream<CheckpointFile.Claim> liveEntries(View v) {
    return v.checkpoint().claims().entrySet().stream()
        .filter(e -> v.liveClaims().containsKey(e.getKey()))
        .map(Map.Entry::getValue);
  }

  private Set<String> allocatedDevices(ResourceClaim claim) {
    if (claim.getStatus() == null || claim.getStatus().getAllocation() == null) {
      return Set.of();
    }
    return claim.getStatus().getAllocation().getDevices().getResults().stream()
        .filter(r -> DriverNames.DEFAULT_DRIVER.equals(r.getDriver()))
        .filter(r -> nodeName.equals(r.getPool()))
        .map(r -> r.getDevice())
        .collect(Collectors.toSet());
  }

  private SimulatedGpus.Gpu initialGpu(int index) {
    return initial.gpus().get(index);
  }

  private static boolean same(SimulatedGpus.GpuInstance a, SimulatedGpus.GpuInstance b) {
    return a.profileId() == b.profileId() && a.start() == b.start();
  }

  private CheckpointFile checkpoint() throws IOException {
    Path file = pluginDir.resolve("checkpoint.json");
    if (!Files.exists(file)) {
      return new CheckpointFile(CheckpointFile.API_VERSION, "", Map.of());
    }
    return json.readValue(Files.readString(file), CheckpointFile.class);
  }

  private Set<String> cdiSpecClaims() throws IOException {
    try (Stream<Path> files = Files.list(cdiDir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith(CDI_PREFIX) && n.endsWith(".json"))
          .map(n -> n.substring(CDI_PREFIX.length(), n.length() - ".json".length()))
          .collect(Collectors.toSet());
    }
  }
}
