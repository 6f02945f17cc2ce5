package dev.tessera.cli.why;

import dev.tessera.cel.CelDevice;
import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cel.DeviceSelectors.Outcome;
import dev.tessera.cel.Quantity;
import dev.tessera.cli.core.CelDevices;
import dev.tessera.cli.core.ClaimRef;
import dev.tessera.cli.core.DeviceUse;
import dev.tessera.cli.core.Inventory;
import dev.tessera.cli.core.PublishedDevice;
import dev.tessera.cli.core.Quantities;
import dev.tessera.cli.core.Snapshot;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why a claim is pending, node by node (pure): for each request, each of the driver's devices on
 * the node is judged as the scheduler would, in its order — the DeviceClass's selectors, then the
 * request's (the same CEL, in the same environment), then whether it is free: not tainted against
 * the request's tolerations, not held by an allocated claim, its shared counters not exhausted,
 * enough capacity left on a shared device. Where it does not model the scheduler (constraints
 * across devices, a CEL error) it says so rather than guess.
 */
public final class Why {
  private final Snapshot snapshot;
  private final Inventory inventory;
  private final DeviceSelectors selectors;
  private final TestedValues tested;
  private final Map<String, DeviceClass> classes = new LinkedHashMap<>();
  // By identity: a fabric8 model's hashCode walks the whole device, on every lookup.
  private final Map<PublishedDevice, CelDevice> celDevices = new IdentityHashMap<>();

  public Why(Snapshot snapshot, DeviceSelectors selectors) {
    this.snapshot = snapshot;
    this.inventory = new Inventory(snapshot);
    this.selectors = selectors;
    this.tested = new TestedValues(snapshot.driver());
    snapshot.classes().forEach(c -> classes.put(c.getMetadata().getName(), c));
  }

  public WhyReport explain(ResourceClaim claim) {
    ClaimRef ref = ClaimRef.of(claim);
    List<DeviceRequestAllocationResult> results = Inventory.results(claim);
    if (claim.getStatus() != null && claim.getStatus().getAllocation() != null) {
      var lines = new ArrayList<String>();
      for (DeviceRequestAllocationResult r : results) {
        String consumed =
            r.getConsumedCapacity() == null || r.getConsumedCapacity().isEmpty()
                ? ""
                : " (consumed " + consumed(r.getConsumedCapacity()) + ")";
        lines.add(r.getRequest() + ": " + r.getPool() + "/" + r.getDevice() + consumed);
      }
      List<String> pods =
          claim.getStatus().getReservedFor() == null
              ? List.of()
              : claim.getStatus().getReservedFor().stream().map(p -> p.getName()).toList();
      return new WhyReport.Allocated(ref, lines, pods);
    }
    var notModeled = new ArrayList<String>();
    var devices = claim.getSpec().getDevices();
    if (devices != null
        && devices.getConstraints() != null
        && !devices.getConstraints().isEmpty()) {
      notModeled.add(
          "constraints across devices (matchAttribute, distinctAttribute): a node may have enough"
              + " devices for each request and still none that agree");
    }
    List<DeviceRequest> requests =
        devices == null || devices.getRequests() == null ? List.of() : devices.getRequests();
    var nodes = new ArrayList<WhyReport.NodeFinding>();
    for (String node : inventory.byNode().keySet()) {
      var findings = new ArrayList<RequestFinding>();
      for (DeviceRequest request : requests) {
        for (Ask ask : Ask.of(request)) {
          findings.add(judge(ask, inventory.devicesOf(node)));
        }
      }
      nodes.add(new WhyReport.NodeFinding(node, findings));
    }
    return new WhyReport.Pending(ref, nodes, notModeled);
  }

  private RequestFinding judge(Ask ask, List<PublishedDevice> devices) {
    DeviceClass deviceClass = classes.get(ask.deviceClass());
    if (deviceClass == null) {
      return new RequestFinding(
          ask.name(),
          ask.deviceClass(),
          ask.count(),
          List.of(new Reason.NoSuchClass(ask.deviceClass())));
    }
    List<String> classSelectors =
        deviceClass.getSpec() == null || deviceClass.getSpec().getSelectors() == null
            ? List.of()
            : deviceClass.getSpec().getSelectors().stream()
                .filter(s -> s.getCel() != null)
                .map(s -> s.getCel().getExpression())
                .toList();
    var reasons = new ArrayList<Reason>();
    int notOfClass = 0;
    for (PublishedDevice device : devices) {
      CelDevice cel =
          celDevices.computeIfAbsent(device, d -> CelDevices.of(snapshot.driver(), d.device()));
      Outcome ofClass = ofClass(cel, classSelectors);
      if (ofClass instanceof Outcome.Failed f) {
        notOfClass++;
        reasons.add(new Reason.CannotDecide(device.name(), "class selector fails: " + f.message()));
        continue;
      }
      if (ofClass instanceof Outcome.Matches m && !m.value()) {
        notOfClass++;
        continue;
      }
      reasons.add(requestVerdict(ask, device, cel).orElseGet(() -> availability(ask, device)));
    }
    if (notOfClass == devices.size()) {
      reasons.addFirst(new Reason.NoDeviceOfClass(ask.deviceClass(), devices.size()));
    }
    return new RequestFinding(ask.name(), ask.deviceClass(), ask.count(), reasons);
  }

  /** Whether the device is of the class: all its selectors true; the first false or failure. */
  private Outcome ofClass(CelDevice cel, List<String> classSelectors) {
    for (String expression : classSelectors) {
      Outcome outcome = selectors.evaluate(expression, cel);
      if (!(outcome instanceof Outcome.Matches m && m.value())) {
        return outcome;
      }
    }
    return new Outcome.Matches(true);
  }

  private Optional<Reason> requestVerdict(Ask ask, PublishedDevice device, CelDevice cel) {
    for (int i = 0; i < ask.selectors().size(); i++) {
      String expression = ask.selectors().get(i);
      switch (selectors.evaluate(expression, cel)) {
        case Outcome.Matches m when m.value() -> {}
        case Outcome.Matches m -> {
          return Optional.of(
              new Reason.SelectorFalse(
                  device.name(), i + 1, expression, tested.of(expression, cel)));
        }
        case Outcome.Failed f -> {
          String hint = tested.hint(expression, cel).map(h -> "; " + h).orElse("");
          return Optional.of(
              new Reason.CannotDecide(
                  device.name(),
                  "selector #%d fails to evaluate: %s%s".formatted(i + 1, f.message(), hint)));
        }
      }
    }
    return Optional.empty();
  }

  /** Whether a device that matches is free for the request. */
  private Reason availability(Ask ask, PublishedDevice device) {
    List<String> taints = DeviceTaints.untolerated(device.device(), ask.tolerations());
    if (!taints.isEmpty()) {
      return new Reason.Tainted(device.name(), taints);
    }
    List<DeviceUse> uses = inventory.usesOf(device);
    if (ask.adminAccess()) {
      return new Reason.Fits(device.name(), "admin access: shares with any holder");
    }
    if (!device.shared() && !uses.isEmpty()) {
      return new Reason.Taken(device.name(), uses.stream().map(DeviceUse::claim).toList());
    }
    Optional<Reason> counters = counters(device);
    if (counters.isPresent()) {
      return counters.get();
    }
    if (device.shared()) {
      return capacity(ask, device, uses);
    }
    return new Reason.Fits(device.name(), "");
  }

  private Optional<Reason> counters(PublishedDevice device) {
    List<DeviceCounterConsumption> consumptions = device.device().getConsumesCounters();
    if (consumptions == null) {
      return Optional.empty();
    }
    for (DeviceCounterConsumption consumption : consumptions) {
      String set = consumption.getCounterSet();
      Map<String, Quantity> totals = inventory.counterSet(device.pool(), set);
      if (totals.isEmpty()) {
        return Optional.of(
            new Reason.CannotDecide(
                device.name(),
                "counter set " + set + " is not published in pool " + device.pool()));
      }
      Inventory.CounterUse use = inventory.counterUse(device.pool(), set);
      for (var counter : consumption.getCounters().entrySet()) {
        Quantity needs = Quantities.of(counter.getValue().getValue());
        Quantity total = totals.getOrDefault(counter.getKey(), Quantity.of(0));
        Quantity left = total.subtract(use.usedOf(counter.getKey()));
        if (needs.compareTo(left) > 0) {
          return Optional.of(
              new Reason.CountersExhausted(
                  device.name(),
                  set,
                  counter.getKey(),
                  needs,
                  left,
                  use.holdersOf(counter.getKey()).stream().distinct().toList()));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * A shared device: each capacity the request asks (or the device's default for it) against what
   * allocated claims consumed.
   */
  private Reason capacity(Ask ask, PublishedDevice device, List<DeviceUse> uses) {
    Map<String, DeviceCapacity> capacity =
        device.device().getCapacity() == null ? Map.of() : device.device().getCapacity();
    var notes = new ArrayList<String>();
    for (var entry : capacity.entrySet()) {
      String name = entry.getKey();
      Quantity total = Quantities.of(entry.getValue().getValue());
      Quantity asks = ask.capacity().get(name);
      if (asks == null) {
        var policy = entry.getValue().getRequestPolicy();
        asks =
            policy != null && policy.getDefault() != null
                ? Quantities.of(policy.getDefault())
                : total;
      }
      Quantity used = Quantity.of(0);
      for (DeviceUse use : uses) {
        used = used.add(use.consumed().getOrDefault(name, Quantity.of(0)));
      }
      Quantity left = total.subtract(used);
      if (asks.compareTo(left) > 0) {
        return new Reason.CapacityShort(
            device.name(),
            name,
            asks,
            left,
            uses.stream()
                .filter(u -> u.consumed().containsKey(name))
                .map(DeviceUse::claim)
                .toList());
      }
      if (ask.capacity().containsKey(name)) {
        notes.add(name + " " + left.human() + " left");
      }
    }
    return new Reason.Fits(device.name(), String.join(", ", notes));
  }

  private static String consumed(Map<String, io.fabric8.kubernetes.api.model.Quantity> consumed) {
    var parts = new ArrayList<String>();
    consumed.forEach((n, q) -> parts.add(n + "=" + Quantities.of(q).human()));
    return String.join(", ", parts);
  }
}
