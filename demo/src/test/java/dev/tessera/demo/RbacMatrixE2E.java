package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.k8s.MpsDaemonPod;
import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsPaths;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Watchable;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who may do what, on the real cluster with Tessera installed by its chart: every cell of {@link
 * #MATRIX} (the table in {@code deploy/README.md}, "Who may do what", kept equal by {@link
 * RbacMatrixDocTest}) asked twice, as {@code kubectl auth can-i} asks (a SelfSubjectAccessReview)
 * and by a real write, each with a real service account token: the plugin's bound to its running
 * pod (so the API server puts its node into the token, as into the plugin's own), the controller's
 * bound to its pod, the release namespace's default service account's unbound.
 *
 * <p>An allowed write is real and undone after; a write that must be refused is sent with {@code
 * dryRun=All} (authorized and admitted exactly like a write, never stored), so a hole would show as
 * a failure here, not as damage to the running release. Also: the webhook's TLS key reaches the
 * controller only (its pod's secret volume; no service account may read it through the API), and
 * the plugin's container runs with CAP_MKNOD alone, no privilege escalation, seccomp {@code
 * RuntimeDefault} and a read-only root (its process's {@code /proc} status, where the node is this
 * host).
 */
@ExtendWith(TesseraLogsOnFailure.class)
class RbacMatrixE2E {
  static final String NAMESPACE = "rbac-matrix";
  static final String OTHER_NODE = "rbac-other-node";
  private static final String DRIVER = "gpu.tessera.dev";
  private static final String PLUGIN_SA = "tessera-kubelet-plugin";
  private static final String CONTROLLER_SA = "tessera-controller";
  private static final String WEBHOOK_SECRET = "tessera-webhook-tls";
  private static final String ELECTION_LEASE = "tessera-controller";
  private static final String LABEL = "rbac-matrix-e2e";

  /** A capability set of CAP_MKNOD (27) alone, as /proc/PID/status writes it. */
  private static final String ONLY_MKNOD = "%016x".formatted(1L << 27);

  /** The service accounts, each with a real token. */
  enum Who {
    PLUGIN("plugin"),
    CONTROLLER("controller"),
    DEFAULT("default SA");

    final String column;

    Who(String column) {
      this.column = column;
    }
  }

  /** What a write comes to: allowed, or refused with an HTTP code and a part of its message. */
  record Outcome(int code, String says) {
    static final Outcome ALLOWED = new Outcome(0, "");

    static Outcome rbac() {
      return new Outcome(403, "cannot ");
    }

    static Outcome refused(int code, String says) {
      return new Outcome(code, says);
    }

    String cell() {
      return code == 0 ? "allowed" : "refused (" + code + ")";
    }
  }

  /** A write as the service account: its client. */
  @FunctionalInterface
  interface Write {
    void as(KubernetesClient client) throws Exception;
  }

  /**
   * One cell: who, what (verb, resource, which object), what {@code kubectl auth can-i} says, what
   * the real write comes to, and what decides it.
   */
  record Cell(
      Who who,
      String verb,
      String resource,
      String object,
      boolean canI,
      Outcome write,
      String by,
      Access access,
      Write action) {
    String row() {
      return "| %s | %s %s | %s | %s | %s | %s |"
          .formatted(who.column, verb, resource, object, canI ? "yes" : "no", write.cell(), by);
    }
  }

  /** What can-i is asked: the request's attributes (the group's "" is the core group). */
  record Access(String verb, String group, String resource, String namespace, String name) {}

  private static final String RBAC = "RBAC";
  private static final String OWN_CLAIMS =
      "RBAC; API server (resourceclaims/driver); policy own-claims";
  private static final String OWN_GPUNODE = "RBAC; policy own-gpunode";
  private static final String OWN_LEASES = "RBAC; policy own-leases";
  private static final String OWN_MPS_DAEMONS = "RBAC; policy own-mps-daemons";

  /**
   * The matrix. "its node" is the cluster's node, where the plugin pod runs; "another node" is a
   * name no node has. The plugin creates and deletes its MPS daemons' pods, in the release
   * namespace, on its own node, with the daemon's label: held there by a policy on the node in the
   * token, as the GpuNode is; it cannot read pods.
   */
  static final List<Cell> MATRIX =
      List.of(
          // The plugin: the status of claims on its node, its GpuNode, its Lease, Events.
          new Cell(
              Who.PLUGIN,
              "update",
              "resourceclaims/status",
              "a claim allocated on its node",
              true,
              Outcome.ALLOWED,
              OWN_CLAIMS,
              access(
                  "update", "resource.k8s.io", "resourceclaims/status", NAMESPACE, "on-its-node"),
              c -> writeDeviceStatus(c, "on-its-node", nodeName(), false)),
          new Cell(
              Who.PLUGIN,
              "update",
              "resourceclaims/status",
              "a claim allocated on another node",
              true,
              Outcome.refused(422, "requires resource=\"resourceclaims/driver\""),
              OWN_CLAIMS,
              access("update", "resource.k8s.io", "resourceclaims/status", NAMESPACE, "elsewhere"),
              c -> writeDeviceStatus(c, "elsewhere", OTHER_NODE, true)),
          new Cell(
              Who.PLUGIN,
              "update",
              "resourceclaims/status",
              "a claim selecting its node with another node's pool",
              true,
              Outcome.refused(403, "may write the status only of claims allocated on its node"),
              OWN_CLAIMS,
              access("update", "resource.k8s.io", "resourceclaims/status", NAMESPACE, "mixed-up"),
              c -> writeDeviceStatus(c, "mixed-up", OTHER_NODE, true)),
          new Cell(
              Who.PLUGIN,
              "update",
              "resourceclaims/status",
              "the allocation of a claim on its node",
              false,
              Outcome.refused(422, "requires resource=\"resourceclaims/binding\""),
              "RBAC (resourceclaims/binding); API server",
              access("update", "resource.k8s.io", "resourceclaims/binding", "", ""),
              c -> reallocate(c, "on-its-node")),
          new Cell(
              Who.PLUGIN,
              "associated-node:update",
              "resourceclaims/driver",
              DRIVER,
              true,
              Outcome.ALLOWED,
              RBAC,
              access(
                  "associated-node:update",
                  "resource.k8s.io",
                  "resourceclaims/driver",
                  NAMESPACE,
                  DRIVER),
              c -> writeDeviceStatus(c, "on-its-node", nodeName(), false)),
          new Cell(
              Who.PLUGIN,
              "arbitrary-node:update",
              "resourceclaims/driver",
              DRIVER,
              false,
              Outcome.refused(422, "requires resource=\"resourceclaims/driver\""),
              RBAC,
              access(
                  "arbitrary-node:update",
                  "resource.k8s.io",
                  "resourceclaims/driver",
                  NAMESPACE,
                  DRIVER),
              c -> writeDeviceStatus(c, "elsewhere", OTHER_NODE, true)),
          new Cell(
              Who.PLUGIN,
              "get",
              "resourceclaims",
              "any claim",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("get", "resource.k8s.io", "resourceclaims", NAMESPACE, "elsewhere"),
              c -> claims(c).withName("elsewhere").require()),
          new Cell(
              Who.PLUGIN,
              "create",
              "resourceclaims",
              "a claim",
              false,
              Outcome.rbac(),
              RBAC,
              access("create", "resource.k8s.io", "resourceclaims", NAMESPACE, ""),
              c -> claims(c).resource(claim("made-by-plugin")).dryRun().create()),
          new Cell(
              Who.PLUGIN,
              "update",
              "gpunodes",
              "its node's",
              true,
              Outcome.ALLOWED,
              OWN_GPUNODE,
              access("update", "gpu.tessera.dev", "gpunodes", "", "<node>"),
              RbacMatrixE2E::labelOwnGpuNode),
          new Cell(
              Who.PLUGIN,
              "patch",
              "gpunodes/status",
              "its node's",
              true,
              Outcome.ALLOWED,
              OWN_GPUNODE,
              access("patch", "gpu.tessera.dev", "gpunodes/status", "", "<node>"),
              c -> patchGpuNodeStatus(c, nodeName(), false)),
          new Cell(
              Who.PLUGIN,
              "create",
              "gpunodes",
              "another node's",
              true,
              Outcome.refused(403, "may write only the GpuNode"),
              OWN_GPUNODE,
              access("create", "gpu.tessera.dev", "gpunodes", "", ""),
              c -> gpuNodes(c).resource(gpuNode(OTHER_NODE)).dryRun().create()),
          new Cell(
              Who.PLUGIN,
              "delete",
              "gpunodes",
              "its node's",
              false,
              Outcome.rbac(),
              RBAC,
              access("delete", "gpu.tessera.dev", "gpunodes", "", "<node>"),
              c -> gpuNodes(c).withName(nodeName()).dryRun().delete()),
          new Cell(
              Who.PLUGIN,
              "update",
              "leases",
              "its own (tessera-<node>)",
              true,
              Outcome.ALLOWED,
              OWN_LEASES,
              access(
                  "update", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, "tessera-<node>"),
              RbacMatrixE2E::renewOwnLease),
          new Cell(
              Who.PLUGIN,
              "create",
              "leases",
              "another node's",
              true,
              Outcome.refused(403, "may write only the Lease tessera-"),
              OWN_LEASES,
              access("create", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, ""),
              c -> leases(c).resource(lease("tessera-" + OTHER_NODE)).dryRun().create()),
          new Cell(
              Who.PLUGIN,
              "update",
              "leases",
              "the controller's election Lease",
              true,
              Outcome.refused(403, "may write only the Lease tessera-"),
              OWN_LEASES,
              access(
                  "update", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, ELECTION_LEASE),
              c -> touchLease(c, ELECTION_LEASE, true)),
          new Cell(
              Who.PLUGIN,
              "create",
              "events",
              "in a claim's namespace",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("create", "", "events", NAMESPACE, ""),
              c -> createEvent(c, NAMESPACE)),
          new Cell(
              Who.PLUGIN,
              "list",
              "events",
              "any",
              false,
              Outcome.rbac(),
              RBAC,
              access("list", "", "events", NAMESPACE, ""),
              c -> c.v1().events().inNamespace(NAMESPACE).list()),
          new Cell(
              Who.PLUGIN,
              "get",
              "nodes",
              "its node",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("get", "", "nodes", "", "<node>"),
              c -> c.nodes().withName(nodeName()).require()),
          new Cell(
              Who.PLUGIN,
              "patch",
              "nodes",
              "its node",
              false,
              Outcome.rbac(),
              RBAC,
              access("patch", "", "nodes", "", "<node>"),
              c -> labelNode(c)),
          new Cell(
              Who.PLUGIN,
              "create",
              "pods",
              "an MPS daemon pod on its node",
              true,
              Outcome.ALLOWED,
              OWN_MPS_DAEMONS,
              access("create", "", "pods", HelmChart.NAMESPACE, ""),
              c -> createPod(c, mpsDaemonPod(nodeName()))),
          new Cell(
              Who.PLUGIN,
              "create",
              "pods",
              "an MPS daemon pod on another node",
              true,
              Outcome.refused(403, "only MPS control daemon pods bound to that node"),
              OWN_MPS_DAEMONS,
              access("create", "", "pods", HelmChart.NAMESPACE, ""),
              c -> createPod(c, mpsDaemonPod(OTHER_NODE))),
          new Cell(
              Who.PLUGIN,
              "create",
              "pods",
              "a pod on its node without the daemon's label",
              true,
              Outcome.refused(403, "may create and delete only MPS control daemon pods"),
              OWN_MPS_DAEMONS,
              access("create", "", "pods", HelmChart.NAMESPACE, ""),
              c -> createPod(c, unlabelled(mpsDaemonPod(nodeName())))),
          new Cell(
              Who.PLUGIN,
              "create",
              "pods",
              "an MPS daemon pod with a service account token",
              true,
              Outcome.refused(403, "runs without a service account token"),
              OWN_MPS_DAEMONS,
              access("create", "", "pods", HelmChart.NAMESPACE, ""),
              c -> createPod(c, withToken(mpsDaemonPod(nodeName())))),
          new Cell(
              Who.PLUGIN,
              "create",
              "pods",
              "an MPS daemon pod mounting the webhook's TLS key",
              true,
              Outcome.refused(403, "mounts host paths only"),
              OWN_MPS_DAEMONS,
              access("create", "", "pods", HelmChart.NAMESPACE, ""),
              c -> createPod(c, withWebhookKey(mpsDaemonPod(nodeName())))),
          new Cell(
              Who.PLUGIN,
              "delete",
              "pods",
              "its own pod",
              true,
              Outcome.refused(403, "may create and delete only MPS control daemon pods"),
              OWN_MPS_DAEMONS,
              access("delete", "", "pods", HelmChart.NAMESPACE, ""),
              c ->
                  c.pods()
                      .inNamespace(HelmChart.NAMESPACE)
                      .withName(pluginPod())
                      .dryRun()
                      .delete()),
          new Cell(
              Who.PLUGIN,
              "list",
              "pods",
              "any",
              false,
              Outcome.rbac(),
              RBAC,
              access("list", "", "pods", HelmChart.NAMESPACE, ""),
              c -> c.pods().inNamespace(HelmChart.NAMESPACE).list()),
          new Cell(
              Who.PLUGIN,
              "create",
              "resourceslices",
              "any",
              false,
              Outcome.rbac(),
              RBAC,
              access("create", "resource.k8s.io", "resourceslices", "", ""),
              c -> slices(c).resource(slice()).dryRun().create()),
          new Cell(
              Who.PLUGIN,
              "get",
              "secrets",
              "the webhook's TLS key",
              false,
              Outcome.rbac(),
              RBAC,
              access("get", "", "secrets", HelmChart.NAMESPACE, WEBHOOK_SECRET),
              RbacMatrixE2E::getWebhookSecret),
          // The controller: ResourceSlices, its election Lease, Events; reads what it watches.
          new Cell(
              Who.CONTROLLER,
              "create",
              "resourceslices",
              "any",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("create", "resource.k8s.io", "resourceslices", "", ""),
              RbacMatrixE2E::createAndDeleteSlice),
          new Cell(
              Who.CONTROLLER,
              "delete",
              "resourceslices",
              "any",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("delete", "resource.k8s.io", "resourceslices", "", ""),
              RbacMatrixE2E::createAndDeleteSlice),
          new Cell(
              Who.CONTROLLER,
              "watch",
              "resourceslices",
              "all",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("watch", "resource.k8s.io", "resourceslices", "", ""),
              c -> watchBriefly(slices(c))),
          new Cell(
              Who.CONTROLLER,
              "patch",
              "leases",
              "its election Lease",
              true,
              Outcome.ALLOWED,
              OWN_LEASES,
              access("patch", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, ELECTION_LEASE),
              // dryRun: a real renewal by the test would race the elected leader's own.
              c -> patchLease(c, ELECTION_LEASE)),
          new Cell(
              Who.CONTROLLER,
              "create",
              "leases",
              "a plugin's (tessera-<node>)",
              true,
              Outcome.refused(403, "may write only the Lease tessera-controller"),
              OWN_LEASES,
              access("create", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, ""),
              c -> leases(c).resource(lease("tessera-" + OTHER_NODE)).dryRun().create()),
          new Cell(
              Who.CONTROLLER,
              "update",
              "leases",
              "a plugin's (tessera-<node>)",
              false,
              Outcome.rbac(),
              RBAC,
              access(
                  "update", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, "tessera-<node>"),
              c -> touchLease(c, "tessera-" + nodeName(), true)),
          new Cell(
              Who.CONTROLLER,
              "watch",
              "leases",
              "in the release namespace",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("watch", "coordination.k8s.io", "leases", HelmChart.NAMESPACE, ""),
              c -> watchBriefly(leases(c))),
          new Cell(
              Who.CONTROLLER,
              "create",
              "events",
              "in default (a GpuNode's)",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("create", "", "events", "default", ""),
              c -> createEvent(c, "default")),
          new Cell(
              Who.CONTROLLER,
              "create",
              "events",
              "in another namespace",
              false,
              Outcome.rbac(),
              RBAC,
              access("create", "", "events", NAMESPACE, ""),
              c -> createEvent(c, NAMESPACE)),
          new Cell(
              Who.CONTROLLER,
              "watch",
              "gpunodes",
              "all",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("watch", "gpu.tessera.dev", "gpunodes", "", ""),
              c -> watchBriefly(gpuNodes(c))),
          new Cell(
              Who.CONTROLLER,
              "patch",
              "gpunodes/status",
              "any (status.offering)",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("patch", "gpu.tessera.dev", "gpunodes/status", "", "<node>"),
              c -> patchGpuNodeStatus(c, nodeName(), false)),
          new Cell(
              Who.CONTROLLER,
              "update",
              "gpunodes",
              "any",
              false,
              Outcome.rbac(),
              RBAC,
              access("update", "gpu.tessera.dev", "gpunodes", "", "<node>"),
              c -> labelGpuNode(c, true)),
          new Cell(
              Who.CONTROLLER,
              "watch",
              "nodes",
              "all",
              true,
              Outcome.ALLOWED,
              RBAC,
              access("watch", "", "nodes", "", ""),
              c -> watchBriefly(c.nodes())),
          new Cell(
              Who.CONTROLLER,
              "patch",
              "nodes",
              "any",
              false,
              Outcome.rbac(),
              RBAC,
              access("patch", "", "nodes", "", "<node>"),
              c -> labelNode(c)),
          new Cell(
              Who.CONTROLLER,
              "update",
              "resourceclaims/status",
              "any claim",
              false,
              Outcome.rbac(),
              RBAC,
              access(
                  "update", "resource.k8s.io", "resourceclaims/status", NAMESPACE, "on-its-node"),
              c -> writeDeviceStatus(c, "on-its-node", nodeName(), true)),
          new Cell(
              Who.CONTROLLER,
              "create",
              "pods",
              "any",
              false,
              Outcome.rbac(),
              RBAC,
              access("create", "", "pods", HelmChart.NAMESPACE, ""),
              c ->
                  c.pods()
                      .inNamespace(HelmChart.NAMESPACE)
                      .resource(mpsDaemonPod(nodeName()))
                      .dryRun()
                      .create()),
          // The webhook's TLS key: the controller's pod mounts it (the kubelet fetches it for the
          // pod); no service account reads it through the API.
          new Cell(
              Who.CONTROLLER,
              "get",
              "secrets",
              "the webhook's TLS key",
              false,
              Outcome.rbac(),
              "RBAC (its pod's secret volume instead)",
              access("get", "", "secrets", HelmChart.NAMESPACE, WEBHOOK_SECRET),
              RbacMatrixE2E::getWebhookSecret),
          new Cell(
              Who.DEFAULT,
              "get",
              "secrets",
              "the webhook's TLS key",
              false,
              Outcome.rbac(),
              RBAC,
              access("get", "", "secrets", HelmChart.NAMESPACE, WEBHOOK_SECRET),
              RbacMatrixE2E::getWebhookSecret),
          new Cell(
              Who.DEFAULT,
              "list",
              "secrets",
              "in the release namespace",
              false,
              Outcome.rbac(),
              RBAC,
              access("list", "", "secrets", HelmChart.NAMESPACE, ""),
              c -> c.secrets().inNamespace(HelmChart.NAMESPACE).list()));

  /** The matrix as the Markdown table {@code deploy/README.md} holds. */
  static List<String> table() {
    var lines = new ArrayList<String>();
    lines.add("| who | may it | which | can-i | real request | decided by |");
    lines.add("|---|---|---|---|---|---|");
    MATRIX.forEach(c -> lines.add(c.row()));
    return lines;
  }

  private static TesseraOnNode tessera;
  private static Cluster cluster;
  private static final Map<Who, KubernetesClient> AS = new EnumMap<>(Who.class);

  @BeforeAll
  static void start() throws Exception {
    cluster = Clusters.require();
    tessera =
        TesseraOnNode.startWithHelmValues(
            cluster, "H100-SXM5-80GB", 1, Offering.EXCLUSIVE, List.of());
    KubernetesClient admin = tessera.client();
    admin
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
    allocated("on-its-node", nodeName(), nodeName());
    allocated("elsewhere", OTHER_NODE, OTHER_NODE);
    // A claim no scheduler would allocate: its node's selector, another node's devices. On
    // Kubernetes 1.36+ only the policy tells it from the plugin's own.
    allocated("mixed-up", nodeName(), OTHER_NODE);
    String config = Files.readString(cluster.adminKubeconfig());
    AS.put(Who.PLUGIN, client(config, token(PLUGIN_SA, pluginPodObject())));
    AS.put(Who.CONTROLLER, client(config, token(CONTROLLER_SA, controllerPod())));
    AS.put(Who.DEFAULT, client(config, token("default", null)));
  }

  @AfterAll
  static void stop() throws Exception {
    AS.values().forEach(KubernetesClient::close);
    if (tessera == null) {
      return;
    }
    try {
      KubernetesClient admin = tessera.client();
      admin.namespaces().withName(NAMESPACE).delete();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> admin.namespaces().withName(NAMESPACE).get() == null);
      admin.v1().events().inNamespace("default").withLabel(LABEL).delete();
      unlabelOwnGpuNode(admin);
    } finally {
      tessera.close();
    }
  }

  @Test
  void everyCellOfTheMatrixHolds() {
    var failures = new ArrayList<String>();
    for (Cell cell : MATRIX) {
      KubernetesClient as = AS.get(cell.who());
      boolean canI = canI(as, cell.access());
      String what = cell.row();
      if (canI != cell.canI()) {
        failures.add(what + ": can-i said " + (canI ? "yes" : "no"));
      }
      Optional<String> wrong = write(cell, as);
      wrong.ifPresent(w -> failures.add(what + ": the write " + w));
      System.out.println((canI == cell.canI() && wrong.isEmpty() ? "ok   " : "FAIL ") + what);
    }
    assertThat(failures).as("cells that do not hold").isEmpty();
  }

  @Test
  void theWebhooksKeyIsTheControllersOnly() throws Exception {
    KubernetesClient admin = tessera.client();
    List<Pod> pods = admin.pods().inNamespace(HelmChart.NAMESPACE).list().getItems();
    assertThat(pods)
        .filteredOn(RbacMatrixE2E::mountsWebhookSecret)
        .as("the pods that mount the webhook's TLS key")
        .isNotEmpty()
        .allMatch(
            p ->
                CONTROLLER_SA.equals(p.getSpec().getServiceAccountName())
                    && "tessera-controller"
                        .equals(p.getMetadata().getLabels().get("app.kubernetes.io/name")));
    // The controller read the key: it serves the certificate of the same Secret.
    Assumptions.assumeTrue(cluster.podsReachableFromHere(), "the webhook is not reachable here");
    Secret secret =
        admin.secrets().inNamespace(HelmChart.NAMESPACE).withName(WEBHOOK_SECRET).require();
    X509Certificate stored =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new java.io.ByteArrayInputStream(
                        Base64.getDecoder().decode(secret.getData().get("tls.crt"))));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(servedCertificate()).isEqualTo(stored));
  }

  @Test
  void thePluginRunsWithOnlyMknodNoEscalationRuntimeDefaultSeccompAndAReadOnlyRoot()
      throws Exception {
    Pod pod = pluginPodObject();
    var context = pod.getSpec().getContainers().get(0).getSecurityContext();
    assertThat(context.getPrivileged()).isFalse();
    assertThat(context.getAllowPrivilegeEscalation()).isFalse();
    assertThat(context.getReadOnlyRootFilesystem()).isTrue();
    assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(context.getCapabilities().getAdd()).containsExactly("MKNOD");
    assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType())
        .isEqualTo("RuntimeDefault");

    // What the kernel holds the running process to, where the node is this host.
    Assumptions.assumeTrue(
        cluster.components().isPresent(), "the node's processes are not this host's");
    long pid = PodProcesses.pluginPid(pod.getMetadata().getUid());
    String status = Files.readString(Path.of("/proc/" + pid + "/status"));
    assertThat(PodProcesses.field(status, "CapEff"))
        .as("effective capabilities")
        .isEqualTo(ONLY_MKNOD);
    assertThat(PodProcesses.field(status, "CapPrm"))
        .as("permitted capabilities")
        .isEqualTo(ONLY_MKNOD);
    assertThat(PodProcesses.field(status, "CapBnd")).as("bounding set").isEqualTo(ONLY_MKNOD);
    assertThat(PodProcesses.field(status, "NoNewPrivs")).isEqualTo("1");
    assertThat(PodProcesses.field(status, "Seccomp")).as("2: a seccomp filter").isEqualTo("2");
    String root =
        Files.readAllLines(Path.of("/proc/" + pid + "/mountinfo")).stream()
            .filter(l -> l.split(" ")[4].equals("/"))
            .reduce((a, b) -> b) // the last mount at / is the one the process sees
            .orElseThrow();
    assertThat(root.split(" ")[5].split(",")).as("the root's mount options").contains("ro");
  }

  // --- the writes -------------------------------------------------------------------------

  /**
   * The write of {@code cell} as its service account; what was wrong with its outcome, if anything.
   * A refusal by an admission policy is awaited a little: a policy takes effect a moment after it
   * is made (the writes that must be refused are dry runs, so trying again does no harm).
   */
  private static Optional<String> write(Cell cell, KubernetesClient as) {
    if (cell.write().code() != 403 || cell.by().equals(RBAC)) {
      return once(cell, as);
    }
    var last = new AtomicReference<Optional<String>>();
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                last.set(once(cell, as));
                return last.get().isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      // last says what was wrong
    }
    return last.get();
  }

  private static Optional<String> once(Cell cell, KubernetesClient as) {
    try {
      cell.action().as(as);
      return cell.write().code() == 0 ? Optional.empty() : Optional.of("was allowed");
    } catch (KubernetesClientException e) {
      if (cell.write().code() == 0) {
        return Optional.of("was refused: " + e.getCode() + " " + e.getMessage());
      }
      if (e.getCode() != cell.write().code()
          || !String.valueOf(e.getMessage()).contains(cell.write().says())) {
        return Optional.of(
            "was refused otherwise than by "
                + cell.by()
                + " ('"
                + cell.write().says()
                + "'): "
                + e.getCode()
                + " "
                + e.getMessage());
      }
      return Optional.empty();
    } catch (Exception e) {
      return Optional.of("failed: " + e);
    }
  }

  /**
   * Replaces this driver's entry of the claim's status.devices with one for its allocated device
   * (pool {@code pool}), with a new condition message so the write changes it.
   */
  private static void writeDeviceStatus(
      KubernetesClient as, String name, String pool, boolean dryRun) {
    ResourceClaim claim = claims(tessera.client()).withName(name).require();
    claim
        .getStatus()
        .setDevices(
            List.of(
                new AllocatedDeviceStatusBuilder()
                    .withDriver(DRIVER)
                    .withPool(pool)
                    .withDevice("gpu-0")
                    .withConditions(
                        new ConditionBuilder()
                            .withType("Ready")
                            .withStatus("True")
                            .withReason("Prepared")
                            .withMessage(
                                "written by "
                                    + RbacMatrixE2E.class.getSimpleName()
                                    + " "
                                    + System.nanoTime())
                            .withLastTransitionTime(
                                ZonedDateTime.now()
                                    .truncatedTo(ChronoUnit.SECONDS)
                                    .toInstant()
                                    .toString())
                            .build())
                    .build()));
    var resource = claims(as).resource(claim);
    (dryRun ? resource.dryRun() : resource).updateStatus();
  }

  /** Moves the claim's allocation to another device. */
  private static void reallocate(KubernetesClient as, String name) {
    ResourceClaim claim = claims(tessera.client()).withName(name).require();
    claim.getStatus().getAllocation().getDevices().getResults().get(0).setDevice("gpu-1");
    claims(as).resource(claim).dryRun().updateStatus();
  }

  private static void labelOwnGpuNode(KubernetesClient as) {
    labelGpuNode(as, false);
  }

  private static void labelGpuNode(KubernetesClient as, boolean dryRun) {
    onConflictAgain(
        () -> {
          GenericKubernetesResource node =
              gpuNodes(tessera.client()).withName(nodeName()).require();
          var labels = new HashMap<String, String>();
          if (node.getMetadata().getLabels() != null) {
            labels.putAll(node.getMetadata().getLabels());
          }
          labels.put(LABEL, "true");
          node.getMetadata().setLabels(labels);
          var resource = gpuNodes(as).resource(node);
          (dryRun ? resource.dryRun() : resource).update();
        });
  }

  /** Runs a read-modify-write again while it conflicts with a concurrent writer's. */
  private static void onConflictAgain(Runnable write) {
    for (int attempt = 1; ; attempt++) {
      try {
        write.run();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  private static void unlabelOwnGpuNode(KubernetesClient admin) {
    var node = gpuNodes(admin).withName(nodeName()).get();
    if (node != null
        && node.getMetadata().getLabels() != null
        && node.getMetadata().getLabels().containsKey(LABEL)) {
      gpuNodes(admin)
          .withName(nodeName())
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"labels\":{\"" + LABEL + "\":null}}}");
    }
  }

  /**
   * A merge patch of the GpuNode's status that changes nothing: authorized and admitted all the
   * same.
   */
  private static void patchGpuNodeStatus(KubernetesClient as, String name, boolean dryRun) {
    var resource = gpuNodes(as).withName(name);
    (dryRun ? resource.dryRun() : resource)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{}}");
  }

  /** Renews the plugin's own Lease as the plugin does (its holder and duration kept). */
  private static void renewOwnLease(KubernetesClient as) {
    onConflictAgain(
        () -> {
          Lease lease = leases(tessera.client()).withName("tessera-" + nodeName()).require();
          lease.getSpec().setRenewTime(ZonedDateTime.now());
          leases(as).resource(lease).update();
        });
  }

  private static void touchLease(KubernetesClient as, String name, boolean dryRun) {
    Lease lease = leases(tessera.client()).withName(name).require();
    lease.getSpec().setRenewTime(ZonedDateTime.now());
    var resource = leases(as).resource(lease);
    (dryRun ? resource.dryRun() : resource).update();
  }

  /** A merge patch of the Lease, as fabric8's leader election renews it, as a dry run. */
  private static void patchLease(KubernetesClient as, String name) {
    leases(as)
        .withName(name)
        .dryRun()
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"renewTime\":\""
                + ZonedDateTime.now().toInstant().truncatedTo(ChronoUnit.MICROS)
                + "\"}}");
  }

  private static void createEvent(KubernetesClient as, String namespace) {
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withGenerateName("rbac-matrix-")
            .withNamespace(namespace)
            .addToLabels(LABEL, "true")
            .endMetadata()
            .withNewInvolvedObject()
            .withKind("ResourceClaim")
            .withApiVersion("resource.k8s.io/v1")
            .withNamespace(namespace)
            .withName("on-its-node")
            .endInvolvedObject()
            .withReason("RbacMatrix")
            .withMessage("an Event the matrix test writes")
            .withType("Normal")
            .build();
    var created = as.v1().events().inNamespace(namespace).resource(event).create();
    tessera.client().v1().events().inNamespace(namespace).resource(created).delete();
  }

  private static void labelNode(KubernetesClient as) {
    as.nodes()
        .withName(nodeName())
        .dryRun()
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + LABEL + "\":\"x\"}}}");
  }

  private static void createAndDeleteSlice(KubernetesClient as) {
    var created = slices(as).resource(slice()).create();
    slices(as).resource(created).delete();
  }

  /** Opens a watch (fabric8 returns once the API server has answered it) and closes it. */
  private static <T> void watchBriefly(Watchable<T> what) {
    what.watch(
            new Watcher<T>() {
              @Override
              public void eventReceived(Action action, T resource) {}

              @Override
              public void onClose(WatcherException cause) {}
            })
        .close();
  }

  private static void getWebhookSecret(KubernetesClient as) {
    as.secrets().inNamespace(HelmChart.NAMESPACE).withName(WEBHOOK_SECRET).get();
  }

  // --- the objects -------------------------------------------------------------------------

  /**
   * A claim for one GPU, allocated (as the scheduler would, by the admin) to {@code gpu-0} of
   * {@code pool} on {@code node}.
   */
  private static void allocated(String name, String node, String pool) {
    KubernetesClient admin = tessera.client();
    ResourceClaim claim = claims(admin).resource(claim(name)).create();
    claim.setStatus(
        new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
            .withNewAllocation()
            .withNewDevices()
            .addNewResult()
            .withRequest("gpu")
            .withDriver(DRIVER)
            .withPool(pool)
            .withDevice("gpu-0")
            .endResult()
            .endDevices()
            .withNodeSelector(
                new NodeSelectorBuilder()
                    .addNewNodeSelectorTerm()
                    .addNewMatchField()
                    .withKey("metadata.name")
                    .withOperator("In")
                    .withValues(node)
                    .endMatchField()
                    .endNodeSelectorTerm()
                    .build())
            .endAllocation()
            .build());
    claims(admin).resource(claim).updateStatus();
  }

  private static ResourceClaim claim(String name) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("gpu")
        .withNewExactly()
        .withDeviceClassName(DRIVER)
        .endExactly()
        .endRequest()
        .endDevices()
        .endSpec()
        .build();
  }

  private static GenericKubernetesResource gpuNode(String name) {
    var node =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("gpu.tessera.dev/v1alpha1")
            .withKind("GpuNode")
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .build();
    node.setAdditionalProperty("spec", Map.of("nodeName", name));
    return node;
  }

  private static Lease lease(String name) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(HelmChart.NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withHolderIdentity(LABEL)
        .withLeaseDurationSeconds(10)
        .endSpec()
        .build();
  }

  /** An MPS daemon pod as the plugin makes it ({@link MpsDaemonPod}), bound to {@code node}. */
  private static Pod mpsDaemonPod(String node) {
    return new MpsDaemonPod(
            HelmChart.NAMESPACE,
            node,
            "localhost/tessera/busybox:1.35.0",
            "Never",
            false,
            "/run/nvidia/driver",
            "/driver-root",
            true,
            "")
        .build(
            "GPU-rbac-matrix",
            new DriverTools.Command(List.of("true"), Map.of()),
            new MpsPaths(Path.of("/var/lib/kubelet/plugins/gpu.tessera.dev/mps")));
  }

  private static Pod unlabelled(Pod pod) {
    return new PodBuilder(pod).editMetadata().withLabels(Map.of()).endMetadata().build();
  }

  private static Pod withToken(Pod pod) {
    return new PodBuilder(pod).editSpec().withAutomountServiceAccountToken(true).endSpec().build();
  }

  private static Pod withWebhookKey(Pod pod) {
    return new PodBuilder(pod)
        .editSpec()
        .addNewVolume()
        .withName("webhook-tls")
        .withNewSecret()
        .withSecretName("tessera-webhook-tls")
        .endSecret()
        .endVolume()
        .endSpec()
        .build();
  }

  private static void createPod(KubernetesClient c, Pod pod) {
    c.pods().inNamespace(HelmChart.NAMESPACE).resource(pod).dryRun().create();
  }

  private static io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice slice() {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withGenerateName("rbac-matrix-")
        .endMetadata()
        .withNewSpec()
        // Another driver's pool: Tessera's controller leaves it alone.
        .withDriver("rbac-matrix.tessera.dev")
        .withNewPool()
        .withName("rbac-matrix")
        .withGeneration(1L)
        .withResourceSliceCount(1L)
        .endPool()
        .withAllNodes(true)
        .endSpec()
        .build();
  }

  private static io.fabric8.kubernetes.client.dsl.MixedOperation<
          ResourceClaim,
          io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList,
          io.fabric8.kubernetes.client.dsl.Resource<ResourceClaim>>
      claimsIn(KubernetesClient c) {
    return c.dynamicResourceAllocation().v1().resourceClaims();
  }

  private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          ResourceClaim,
          io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList,
          io.fabric8.kubernetes.client.dsl.Resource<ResourceClaim>>
      claims(KubernetesClient c) {
    return claimsIn(c).inNamespace(NAMESPACE);
  }

  private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      gpuNodes(KubernetesClient c) {
    return c.genericKubernetesResources(GpuNodeReporter.GPU_NODES);
  }

  private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          Lease,
          io.fabric8.kubernetes.api.model.coordination.v1.LeaseList,
          io.fabric8.kubernetes.client.dsl.Resource<Lease>>
      leases(KubernetesClient c) {
    return c.leases().inNamespace(HelmChart.NAMESPACE);
  }

  private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice,
          io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList,
          io.fabric8.kubernetes.client.dsl.Resource<
              io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice>>
      slices(KubernetesClient c) {
    return c.dynamicResourceAllocation().v1().resourcesSlices();
  }

  // --- who is who --------------------------------------------------------------------------

  private static String nodeName() {
    return tessera.nodeName();
  }

  private static Pod pluginPodObject() {
    return tessera.release().pluginPods().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .findFirst()
        .orElseThrow();
  }

  private static String pluginPod() {
    return pluginPodObject().getMetadata().getName();
  }

  private static Pod controllerPod() {
    return tessera
        .client()
        .pods()
        .inNamespace(HelmChart.NAMESPACE)
        .withLabel("app.kubernetes.io/name", "tessera-controller")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .findFirst()
        .orElseThrow();
  }

  /**
   * A real token of {@code serviceAccount}: bound to {@code pod} (the API server then puts the
   * pod's node into it, as into the token the pod itself runs with), or unbound.
   */
  private static String token(String serviceAccount, Pod pod) {
    var spec = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(1800L);
    if (pod != null) {
      spec =
          spec.withNewBoundObjectRef()
              .withApiVersion("v1")
              .withKind("Pod")
              .withName(pod.getMetadata().getName())
              .withUid(pod.getMetadata().getUid())
              .endBoundObjectRef();
    }
    return tessera
        .client()
        .serviceAccounts()
        .inNamespace(HelmChart.NAMESPACE)
        .withName(serviceAccount)
        .tokenRequest(spec.endSpec().build())
        .getStatus()
        .getToken();
  }

  /** A client of the API server that authenticates with {@code token} alone. */
  private static KubernetesClient client(String adminKubeconfig, String token) {
    Config admin = Config.fromKubeconfig(adminKubeconfig);
    Config config = Config.empty();
    config.setMasterUrl(admin.getMasterUrl());
    config.setCaCertData(admin.getCaCertData());
    config.setCaCertFile(admin.getCaCertFile());
    config.setOauthToken(token);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** What {@code kubectl auth can-i VERB RESOURCE[/NAME]} says to the holder of this client. */
  private static boolean canI(KubernetesClient as, Access access) {
    String[] resource = access.resource().split("/", 2);
    var attributes =
        new ResourceAttributesBuilder()
            .withVerb(access.verb())
            .withGroup(access.group())
            .withResource(resource[0])
            .withSubresource(resource.length > 1 ? resource[1] : null)
            .withNamespace(access.namespace())
            .withName(access.name().replace("<node>", nodeName()))
            .build();
    return as.authorization()
        .v1()
        .selfSubjectAccessReview()
        .create(
            new SelfSubjectAccessReviewBuilder()
                .withNewSpec()
                .withResourceAttributes(attributes)
                .endSpec()
                .build())
        .getStatus()
        .getAllowed();
  }

  private static Access access(
      String verb, String group, String resource, String namespace, String name) {
    return new Access(verb, group, resource, namespace, name);
  }

  private static boolean mountsWebhookSecret(Pod pod) {
    return pod.getSpec().getVolumes().stream()
        .anyMatch(
            v -> v.getSecret() != null && WEBHOOK_SECRET.equals(v.getSecret().getSecretName()));
  }

  /** The certificate the webhook serves at the controller pod's host-network address. */
  private static X509Certificate servedCertificate() throws Exception {
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(
        null,
        new TrustManager[] {
          new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
              return new X509Certificate[0];
            }
          }
        },
        new SecureRandom());
    try (var socket = (SSLSocket) tls.getSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress(cluster.hostNetworkAddress(), 8443), 5000);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }
}
