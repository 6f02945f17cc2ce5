package dev.tessera.plugin.prepare;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.AdminAccessRule;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.config.DeviceConfig.GpuConfig;
import dev.tessera.api.config.DeviceConfig.MigDeviceConfig;
import dev.tessera.api.config.FieldError;
import dev.tessera.api.config.InvalidConfigException;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.MigTarget;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what preparing a claim means on this node (pure: no I/O, same answer for the same
 * inputs): checks the claim is the one the kubelet meant and is allocated here, takes our results,
 * resolves each device against the hardware, applies the config, and refuses a device another claim
 * holds unless both share it. A device allocated with admin access is planned as it is (see {@link
 * PlannedDevice#adminAccess}).
 */
public final class ClaimPlanner {
  private final String driverName;
  private final String nodeName;
  private final ConfigResolver configs;

  public ClaimPlanner(String driverName, String nodeName, ConfigResolver configs) {
    this.driverName = driverName;
    this.nodeName = nodeName;
    this.configs = configs;
  }

  /** The pool this node publishes its devices in. */
  public String pool() {
    return nodeName;
  }

  public List<PlannedDevice> plan(
      ClaimRef ref, ResourceClaim claim, NodeInventory inventory, PreparedClaims checkpoint)
      throws PrepareException {
    String uid = claim.getMetadata().getUid();
    if (!ref.uid().equals(uid)) {
      throw new PrepareException(
          "claim "
              + ref.namespace()
              + "/"
              + ref.name()
              + " has UID "
              + uid
              + ", not "
              + ref.uid()
              + ": it was deleted and created again");
    }
    AllocationResult allocation =
        claim.getStatus() == null ? null : claim.getStatus().getAllocation();
    if (allocation == null || allocation.getDevices() == null) {
      throw new PrepareException("claim " + ref + " is not allocated");
    }
    if (!selectsThisNode(allocation.getNodeSelector())) {
      throw new PrepareException("claim " + ref + " is allocated to another node, not " + nodeName);
    }
    List<DeviceRequestAllocationResult> ours =
        allocation.getDevices().getResults().stream()
            .filter(r -> driverName.equals(r.getDriver()))
            .toList();
    List<DeviceRequestAllocationResult> here =
        ours.stream().filter(r -> pool().equals(r.getPool())).toList();
    if (!ours.isEmpty() && here.isEmpty()) {
      throw new PrepareException(
          "claim "
              + ref
              + " has devices of pool "
              + ours.get(0).getPool()
              + ", not of this node's pool "
              + pool());
    }
    List<ConfigResolver.Scoped> scoped;
    try {
      scoped =
          configs.decodeAll(
              allocation.getDevices().getConfig() == null
                  ? List.of()
                  : allocation.getDevices().getConfig());
    } catch (InvalidConfigException e) {
      throw new PrepareException("claim " + ref + " has an invalid config: " + e.getMessage(), e);
    }
    var planned = new ArrayList<PlannedDevice>();
    for (DeviceRequestAllocationResult result : here) {
      planned.add(resolve(ref, result, inventory, scoped));
    }
    refuseConflicts(ref, planned, checkpoint);
    return planned;
  }

  private PlannedDevice resolve(
      ClaimRef ref,
      DeviceRequestAllocationResult result,
      NodeInventory inventory,
      List<ConfigResolver.Scoped> scoped)
      throws PrepareException {
    DeviceName name;
    try {
      name = DeviceName.parse(result.getDevice());
    } catch (IllegalArgumentException e) {
      throw new PrepareException("claim " + ref + ": " + e.getMessage());
    }
    String missing = "claim " + ref + ": device " + result.getDevice() + " is not on this node";
    // Trusted as the allocation says: the API server admits adminAccess only in namespaces an
    // administrator labelled resource.kubernetes.io/admin-access, so the scheduler sets it only
    // there.
    boolean admin = Boolean.TRUE.equals(result.getAdminAccess());
    return switch (name) {
      case DeviceName.Gpu gpuName -> {
        Gpu gpu =
            inventory.gpuByMinor(gpuName.minor()).orElseThrow(() -> new PrepareException(missing));
        if (admin) {
          // As it is, MIG mode or not: a monitoring pod may look at a GPU in MIG mode whole.
          yield new PlannedDevice(
              result.getRequest(),
              result.getPool(),
              name,
              gpu,
              null,
              adminConfig(ref, scoped, result.getRequest(), false),
              result.getShareID(),
              true);
        }
        if (gpu.migMode() == MigMode.ENABLED) {
          throw new PrepareException(
              "claim "
                  + ref
                  + ": GPU "
                  + result.getDevice()
                  + " ("
                  + gpu.uuid()
                  + ") is in MIG mode and cannot be used whole");
        }
        DeviceConfig config =
            ConsumedShare.apply(
                configs.forDevice(scoped, result.getRequest(), false),
                result.getConsumedCapacity());
        yield new PlannedDevice(
            result.getRequest(), result.getPool(), name, gpu, null, config, result.getShareID());
      }
      case DeviceName.Mig migName -> {
        Gpu gpu =
            inventory
                .gpuByMinor(migName.parentMinor())
                .orElseThrow(() -> new PrepareException(missing));
        // Resolved once here; DynamicMig makes or finds the device from it.
        MigTarget target =
            MigTarget.resolve(gpu, migName).orElseThrow(() -> new PrepareException(missing));
        // Null when it does not exist yet (mig-dynamic): prepare creates it, unless the claim has
        // admin access (then it is handed over as it is, see DynamicMig).
        MigDevice mig = MigTarget.existing(gpu, migName).orElse(null);
        DeviceConfig config =
            admin
                ? adminConfig(ref, scoped, result.getRequest(), true)
                : configs.forDevice(scoped, result.getRequest(), true);
        yield new PlannedDevice(
            result.getRequest(),
            result.getPool(),
            name,
            gpu,
            mig,
            config,
            result.getShareID(),
            admin,
            target);
      }
    };
  }

  /**
   * The config of a device with admin access: nothing may be set up for it, so a config of ours
   * that asks for sharing fails the claim naming its field; what remains is the kind's exclusive
   * default. The capacity the scheduler may count for it is not turned into MPS limits either.
   */
  private DeviceConfig adminConfig(
      ClaimRef ref, List<ConfigResolver.Scoped> scoped, String request, boolean mig)
      throws PrepareException {
    Optional<ConfigResolver.Scoped> chosen = configs.chosen(scoped, request, mig);
    if (chosen.isPresent()) {
      Optional<FieldError> error =
          AdminAccessRule.check(chosen.get().config(), chosen.get().path(), request);
      if (error.isPresent()) {
        throw new PrepareException("claim " + ref + " has an invalid config: " + error.get());
      }
    }
    return mig ? MigDeviceConfig.defaults() : GpuConfig.defaults();
  }

  /**
   * A device prepared for another claim may be prepared again only if both claims share it with the
   * same strategy, or the scheduler handed out shares of it (a share ID). Admin access takes the
   * device beside whoever holds it and holds nothing itself, so it is not checked, and another
   * claim's admin access never blocks this one.
   */
  private void refuseConflicts(ClaimRef ref, List<PlannedDevice> planned, PreparedClaims checkpoint)
      throws PrepareException {
    for (PlannedDevice device : planned) {
      if (device.adminAccess()) {
        continue;
      }
      for (Map.Entry<String, ClaimEntry> other : checkpoint.claims().entrySet()) {
        if (other.getKey().equals(ref.uid())) {
          continue;
        }
        for (PreparedDevice held : other.getValue().devices()) {
          if (held.adminAccess()
              || !held.device().equals(device.name().value())
              || !held.pool().equals(device.pool())) {
            continue;
          }
          boolean bothShared =
              device.config().sharing().allowsSharing()
                  && device.config().sharing().strategy().equals(held.sharing());
          boolean bothShares = device.shareId() != null && held.shareId() != null;
          if (!bothShared && !bothShares) {
            throw new PrepareException(
                "claim "
                    + ref
                    + ": device "
                    + held.device()
                    + " is already prepared for claim "
                    + other.getValue().namespace()
                    + "/"
                    + other.getValue().name()
                    + " ("
                    + other.getKey()
                    + ") with sharing "
                    + held.sharing()
                    + "; this claim asks for "
                    + device.config().sharing().strategy());
          }
        }
      }
    }
  }

  /** A node-local allocation selects its node by {@code metadata.name}; no selector means any. */
  private boolean selectsThisNode(NodeSelector selector) {
    if (selector == null || selector.getNodeSelectorTerms() == null) {
      return true;
    }
    for (NodeSelectorTerm term : selector.getNodeSelectorTerms()) {
      List<NodeSelectorRequirement> fields =
          term.getMatchFields() == null ? List.of() : term.getMatchFields();
      boolean matches =
          fields.stream()
              .filter(f -> "metadata.name".equals(f.getKey()))
              .allMatch(f -> "In".equals(f.getOperator()) && f.getValues().contains(nodeName));
      if (matches) {
        return true;
      }
    }
    return false;
  }
}
