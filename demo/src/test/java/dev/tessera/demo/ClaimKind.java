package dev.tessera.demo;

import dev.tessera.controller.render.Offering;
import java.util.List;

/**
 * The kinds of claim the crash campaign keeps creating and deleting, written as a user writes them:
 * a pod with a claim template, or a ResourceClaim that one or two pods name. Each says which
 * offerings serve it and what it takes of the node ({@link #units}, in the offering's one unit:
 * {@link #pool}: whole GPUs, memory shares or an admin's MIG devices), so a wave never asks for
 * more than the node has and every pod can run once the kills and faults are over.
 */
enum ClaimKind {
  EXCLUSIVE_GPU(1, 1, List.of(Offering.EXCLUSIVE, Offering.MIG_DYNAMIC, Offering.MIG_STATIC)),
  TWO_GPUS(2, 1, List.of(Offering.EXCLUSIVE)),
  /** One claim, two pods, one MPS daemon. */
  MPS(1, 2, List.of(Offering.EXCLUSIVE)),
  TIME_SLICED(1, 2, List.of(Offering.EXCLUSIVE)),
  /** A 3g.40gb an admin made ({@code mig-static}). */
  STATIC_MIG(1, 1, List.of(Offering.MIG_STATIC)),
  /**
   * A 1g.10gb made at prepare; counted as a whole GPU, since the scheduler may spread placements so
   * that a 3g.40gb finds no room beside them on a GPU.
   */
  DYNAMIC_MIG_1G(1, 1, List.of(Offering.MIG_DYNAMIC)),
  DYNAMIC_MIG_3G(1, 1, List.of(Offering.MIG_DYNAMIC)),
  /** 16 GiB of a {@code shared} GPU: four fit on each H100. */
  MEMORY_SHARE(1, 1, List.of(Offering.SHARED)),
  /**
   * Every GPU with {@code adminAccess}, beside their holders: takes nothing. Not on {@code
   * mig-dynamic}: there a whole GPU consumes its GPU's counters, and the scheduler (1.37) leaves an
   * {@code allocationMode: All} admin request unschedulable ("cannot allocate all claims") while
   * any GPU is held, as the campaign saw.
   */
  ADMIN_ACCESS(0, 1, List.of(Offering.EXCLUSIVE, Offering.MIG_STATIC));

  /** The namespaces the campaign's claims live in; the second is labelled for admin access. */
  static final String NAMESPACE = "crash-campaign";

  static final String ADMIN_NAMESPACE = "crash-campaign-admin";

  final int units;
  final int pods;
  final List<Offering> offerings;

  ClaimKind(int units, int pods, List<Offering> offerings) {
    this.units = units;
    this.pods = pods;
    this.offerings = List.copyOf(offerings);
  }

  /** What it takes its units of: whole GPUs, an admin's MIG devices, or memory shares. */
  String pool() {
    return switch (this) {
      case STATIC_MIG -> "mig";
      case MEMORY_SHARE -> "share";
      default -> "gpu";
    };
  }

  /** How many units of {@code pool} the node has when offered as {@code offering}. */
  static int capacity(Offering offering, String pool) {
    return switch (offering) {
      case EXCLUSIVE, MIG_DYNAMIC -> pool.equals("gpu") ? CampaignNode.WHOLE.gpus : 0;
      case SHARED -> pool.equals("share") ? 4 * CampaignNode.WHOLE.gpus : 0;
      // GPU 0 whole beside GPU 1's two 3g.40gb.
      case MIG_STATIC -> pool.equals("gpu") ? 1 : pool.equals("mig") ? 2 : 0;
    };
  }

  static List<ClaimKind> servedBy(Offering offering) {
    return List.of(values()).stream().filter(k -> k.offerings.contains(offering)).toList();
  }

  String namespace() {
    return this == ADMIN_ACCESS ? ADMIN_NAMESPACE : NAMESPACE;
  }

  /** The claim template its pods name, or null where they name a ResourceClaim of its own. */
  String template() {
    return switch (this) {
      case EXCLUSIVE_GPU -> "exclusive-gpu";
      case STATIC_MIG, DYNAMIC_MIG_3G -> "mig-3g40gb";
      case DYNAMIC_MIG_1G -> "mig-1g10gb";
      case MEMORY_SHARE -> "share-16gi";
      case TWO_GPUS, MPS, TIME_SLICED, ADMIN_ACCESS -> null;
    };
  }

  /** The ResourceClaim named {@code name} for the kinds that have one of their own. */
  String claimYaml(String name) {
    String request =
        switch (this) {
          case TWO_GPUS -> "exactly: {deviceClassName: gpu.tessera.dev, count: 2}";
          case ADMIN_ACCESS ->
              "exactly: {deviceClassName: gpu.tessera.dev, allocationMode: All, adminAccess: true}";
          default -> "exactly: {deviceClassName: gpu.tessera.dev}";
        };
    String sharing =
        switch (this) {
          case MPS ->
              "{strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: 50,"
                  + " defaultPinnedDeviceMemoryLimit: 10Gi}}";
          case TIME_SLICED -> "{strategy: TimeSlicing, timeSlicingConfig: {interval: Long}}";
          default -> null;
        };
    var yaml =
        new StringBuilder(
            """
            apiVersion: resource.k8s.io/v1
            kind: ResourceClaim
            metadata: {name: %s, namespace: %s}
            spec:
              devices:
                requests:
                - name: gpu
                  %s
            """
                .formatted(name, namespace(), request));
    if (sharing != null) {
      yaml.append(
          """
              config:
              - requests: [gpu]
                opaque:
                  driver: gpu.tessera.dev
                  parameters: {apiVersion: gpu.tessera.dev/v1alpha1, kind: GpuConfig, sharing: %s}
          """
              .formatted(sharing));
    }
    return yaml.toString();
  }

  /** A pod that holds the claim (its own or from the template) until it is deleted. */
  String podYaml(String pod, String claim) {
    String source =
        template() == null
            ? "resourceClaimName: " + claim
            : "resourceClaimTemplateName: " + template();
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, namespace: %s}
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 1
          resourceClaims:
          - {name: gpu, %s}
          containers:
          - name: ctr
            image: localhost/tessera/busybox:1.35.0
            imagePullPolicy: Never
            command: ["sh", "-c", "echo NVIDIA_VISIBLE_DEVICES=$NVIDIA_VISIBLE_DEVICES; echo done; exec sleep 3600"]
            resources:
              claims: [{name: gpu}]
        """
        .formatted(pod, namespace(), source);
  }

  /** The namespaces and templates every kind needs, applied once before the campaign. */
  static List<String> commonYaml() {
    String template =
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata: {name: %s, namespace: %s}
        spec:
          spec:
            devices:
              requests:
              - name: gpu
                exactly:
                  deviceClassName: %s
                  %s
        """;
    String profile =
        "selectors: [{cel: {expression: 'device.attributes[\"gpu.tessera.dev\"].profile == \"%s\"'}}]";
    String namespace =
        """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %s
          labels: {%s}
        """;
    return List.of(
        namespace.formatted(NAMESPACE, ""),
        namespace.formatted(ADMIN_NAMESPACE, "resource.kubernetes.io/admin-access: \"true\""),
        template.formatted("exclusive-gpu", NAMESPACE, "gpu.tessera.dev", ""),
        template.formatted(
            "mig-3g40gb", NAMESPACE, "mig.tessera.dev", profile.formatted("3g.40gb")),
        template.formatted(
            "mig-1g10gb", NAMESPACE, "mig.tessera.dev", profile.formatted("1g.10gb")),
        template.formatted(
            "share-16gi", NAMESPACE, "shared.tessera.dev", "capacity: {requests: {memory: 16Gi}}"));
  }
}
