package dev.tessera.plugin.config;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.kubelet.DraV1Service;
import dev.tessera.plugin.prepare.DeviceState;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rehearses, once at start-up, what a prepare does on the kubelet's clock, with nothing written: it
 * plans a sample claim allocated one of this node's devices and renders its CDI spec and checkpoint
 * record ({@link DeviceState#rehearse}), then encodes a DRA reply through protobuf. Run on the
 * warm-up's thread after the client's part, before the plugin offers registration (decisions 64 and
 * 65; docs/benchmarks.md, "Registration after the client's warm-up" and "The prepare rehearsed
 * before registration").
 */
public final class PrepareWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(PrepareWarmUp.class);

  /** The sample claim's namespace, name and UID, which no real claim has. */
  static final ClaimRef SAMPLE =
      new ClaimRef("default", "tessera-warm-up", "00000000-0000-0000-0000-000000000000");

  /**
   * An allocated, reserved claim with one device of this node and its status, a config of ours with
   * it: what a prepare and its status see. The device is {@code gpu-0} until {@link #run} names one
   * the node has. Placeholders: 1 the driver, 2 the node (and its pool).
   */
  private static final String CLAIM =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
       "metadata":{"name":"tessera-warm-up","namespace":"default",
        "uid":"00000000-0000-0000-0000-000000000000","resourceVersion":"1","generation":1,
        "creationTimestamp":"2026-01-01T00:00:00Z",
        "managedFields":[{"manager":"m","operation":"Update","apiVersion":"resource.k8s.io/v1",
          "time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1",
          "fieldsV1":{"f:spec":{"f:devices":{"f:requests":{}}}}},
         {"manager":"m","operation":"Update","apiVersion":"resource.k8s.io/v1",
          "time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1",
          "fieldsV1":{"f:status":{"f:allocation":{".":{},"f:devices":{}}}},"subresource":"status"}]},
       "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.tessera.dev",
        "allocationMode":"ExactCount","count":1}}],
        "config":[{"requests":["gpu"],"opaque":{"driver":"%1$s",
         "parameters":{"apiVersion":"gpu.tessera.dev/v1alpha1","kind":"GpuConfig"}}}]}},
       "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"%1$s",
         "pool":"%2$s","device":"gpu-0"}],
        "config":[{"source":"FromClaim","requests":["gpu"],"opaque":{"driver":"%1$s",
         "parameters":{"apiVersion":"gpu.tessera.dev/v1alpha1","kind":"GpuConfig"}}}]},
        "nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",
         "operator":"In","values":["%2$s"]}]}]}},
        "reservedFor":[{"resource":"pods","name":"p","uid":"00000000-0000-0000-0000-000000000001"}],
        "devices":[{"driver":"%1$s","pool":"%2$s","device":"gpu-0",
         "conditions":[{"type":"Ready","status":"True","reason":"Prepared","message":"m",
          "lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}],
         "data":{"uuid":"GPU-0"}}]}}
      """;

  private final String driverName;
  private final String nodeName;
  private final Supplier<Rehearsal> rehearsal;
  private final Supplier<NodeInventory> inventory;

  /** What rehearses a prepare: {@link DeviceState#rehearse}. */
  @FunctionalInterface
  public interface Rehearsal {
    void rehearse(ClaimRef ref, ResourceClaim claim) throws PrepareException;
  }

  /**
   * @param rehearsal and {@code inventory} are asked for on the warm-up's thread, when it
   *     rehearses: the warm-up starts before the beans they come from are built
   */
  public PrepareWarmUp(
      String driverName,
      String nodeName,
      Supplier<Rehearsal> rehearsal,
      Supplier<NodeInventory> inventory) {
    this.driverName = driverName;
    this.nodeName = nodeName;
    this.rehearsal = rehearsal;
    this.inventory = inventory;
  }

  /** The sample claim as the API server would send it, for the client to decode. */
  public String sampleClaim() {
    return CLAIM.formatted(driverName, nodeName);
  }

  /**
   * Rehearses a prepare of {@code sample} (the decoded {@link #sampleClaim}, null when it could not
   * be decoded) and encodes a DRA reply. A node with neither a GPU in use whole nor a MIG device
   * that exists rehearses no prepare: its first prepare pays for what the rehearsal would have.
   */
  public void run(ResourceClaim sample) {
    Optional<String> device = rehearsed(inventory.get());
    if (sample != null && device.isPresent()) {
      sample
          .getStatus()
          .getAllocation()
          .getDevices()
          .getResults()
          .getFirst()
          .setDevice(device.get());
      long start = System.nanoTime();
      try {
        rehearsal.get().rehearse(SAMPLE, sample);
        LOG.atInfo()
            .addKeyValue("device", device.get())
            .addKeyValue("ms", (System.nanoTime() - start) / 1_000_000)
            .log("rehearsed a prepare before registration; nothing written");
      } catch (PrepareException e) {
        LOG.atDebug().setCause(e).log("cannot rehearse a prepare; the first prepare pays for it");
      }
    }
    DraV1Service.warmUp();
  }

  /**
   * The device whose prepare is rehearsed: the first GPU in use whole, else the first MIG device
   * that exists (a node of static MIG devices). A MIG device still to be made is not one: making it
   * is device work.
   */
  private static Optional<String> rehearsed(NodeInventory inventory) {
    for (Gpu gpu : inventory.gpus()) {
      if (gpu.migMode() != MigMode.ENABLED) {
        return Optional.of(new DeviceName.Gpu(gpu.minor()).value());
      }
    }
    for (Gpu gpu : inventory.gpus()) {
      if (!gpu.migDevices().isEmpty()) {
        return Optional.of(DeviceName.Mig.of(gpu.minor(), gpu.migDevices().getFirst()).value());
      }
    }
    return Optional.empty();
  }
}
