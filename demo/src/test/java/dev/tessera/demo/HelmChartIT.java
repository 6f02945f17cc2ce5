package dev.tessera.demo;

import static dev.tessera.demo.HelmChart.CHART;
import static dev.tessera.demo.HelmChart.NAMESPACE;
import static dev.tessera.demo.HelmChart.REPO;
import static dev.tessera.demo.HelmChart.helm;
import static dev.tessera.demo.HelmChart.parse;
import static dev.tessera.demo.HelmChart.render;
import static dev.tessera.demo.HelmChart.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.controller.admission.AdmissionReviews;
import dev.tessera.controller.admission.PemTls;
import dev.tessera.controller.admission.WebhookServer;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Helm chart: {@code helm lint}, {@code helm template} with the default values and variants,
 * the values schema, least-privilege RBAC, and no drift from {@code deploy/manifests}. The API
 * server's own validation of every rendered object is {@link HelmChartE2E}.
 */
class HelmChartIT {

  @Test
  void lintsCleanWithDefaultsAndVariants() throws Exception {
    for (List<String> values :
        List.of(
            List.<String>of(),
            List.of("webhook.certManager.enabled=true"),
            List.of("webhook.enabled=false", "admissionPolicy.enabled=false"),
            List.of("hostNetwork=true", "apiServer.host=192.0.2.2", "apiServer.port=6443"),
            List.of("podMonitor.enabled=true", "podMonitor.labels.release=kps"))) {
      var args = new ArrayList<>(List.of("lint", "--strict", CHART.toString()));
      values.forEach(v -> args.addAll(List.of("--set", v)));
      helm(args).orFail("helm lint " + values);
    }
  }

  @Test
  void rendersEveryPartWithTheDefaults() throws Exception {
    List<HasMetadata> objects = render();
    assertThat(objects.stream().map(o -> o.getKind()).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "DaemonSet",
            "Deployment",
            "Secret",
            "Service",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "DeviceClass");
    // Everything namespaced is in the release namespace, but the controller's right to record a
    // cluster-scoped GpuNode's Events, which live in default.
    assertThat(objects)
        .filteredOn(o -> o.getMetadata().getNamespace() != null)
        .filteredOn(o -> !o.getMetadata().getName().equals("tessera-controller-events"))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(NAMESPACE));
  }

  @Test
  void theDaemonSetUpgradesWithASurgeAndMountsWhatThePluginNeeds() throws Exception {
    DaemonSet ds = one(render(), DaemonSet.class);
    var rolling = ds.getSpec().getUpdateStrategy().getRollingUpdate();
    assertThat(rolling.getMaxSurge().getIntVal()).isEqualTo(1);
    assertThat(rolling.getMaxUnavailable().getIntVal()).isZero();
    var pod = ds.getSpec().getTemplate().getSpec();
    var container = pod.getContainers().get(0);
    assertThat(fieldRef(container.getEnv(), "NODE_NAME")).isEqualTo("spec.nodeName");
    assertThat(fieldRef(container.getEnv(), "POD_NAME")).isEqualTo("metadata.name");
    assertThat(env(container.getEnv(), "TESSERA_LEASE_NAMESPACE")).isEqualTo(NAMESPACE);
    assertThat(container.getVolumeMounts().stream().map(m -> m.getMountPath()))
        .contains(
            "/var/lib/kubelet/plugins_registry",
            "/var/lib/kubelet/plugins",
            "/var/run/cdi",
            "/driver-root",
            "/dev");
    assertThat(pod.getHostNetwork()).isNull();
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
  }

  @Test
  void theDriverRootIsMountedApartAndNamedByTheHostsPath() throws Exception {
    for (String hostRoot : List.of("/", "/run/nvidia/driver")) {
      var pod =
          one(render("plugin.driverRoot=" + hostRoot), DaemonSet.class)
              .getSpec()
              .getTemplate()
              .getSpec();
      var container = pod.getContainers().get(0);
      // The plugin reads the driver at /driver-root; CDI specs name the host's paths.
      assertThat(env(container.getEnv(), "TESSERA_DRIVER_ROOT")).isEqualTo("/driver-root");
      assertThat(env(container.getEnv(), "TESSERA_HOST_DRIVER_ROOT")).isEqualTo(hostRoot);
      var mount =
          container.getVolumeMounts().stream()
              .filter(m -> m.getName().equals("driver-root"))
              .findFirst()
              .orElseThrow();
      assertThat(mount.getMountPath()).isEqualTo("/driver-root");
      assertThat(mount.getReadOnly()).as("read-only unless asked").isTrue();
      assertThat(mount.getMountPropagation()).isEqualTo("HostToContainer");
      var volume =
          pod.getVolumes().stream()
              .filter(v -> v.getName().equals("driver-root"))
              .findFirst()
              .orElseThrow();
      assertThat(volume.getHostPath().getPath()).isEqualTo(hostRoot);
    }
    var writable = one(render("plugin.driverRootWritable=true"), DaemonSet.class);
    assertThat(writable.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts())
        .filteredOn(m -> m.getName().equals("driver-root"))
        .singleElement()
        .satisfies(m -> assertThat(m.getReadOnly()).isFalse());
  }

  @Test
  void thePluginCanRunUnprivileged() throws Exception {
    DaemonSet ds = one(render(), DaemonSet.class);
    var container = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();

    // containerd applies no seccomp filter to a privileged container: it binds unprivileged.
    assertThat(
            ds.getSpec().getTemplate().getSpec().getSecurityContext().getSeccompProfile().getType())
        .isEqualTo("RuntimeDefault");

    var unprivileged = one(render("plugin.privileged=false"), DaemonSet.class);
    var context = unprivileged.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(context.getSecurityContext().getPrivileged()).isFalse();
    assertThat(context.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(context.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(context.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    // MIG devices' capability nodes (made by the plugin's NVML as they appear).
    assertThat(context.getSecurityContext().getCapabilities().getAdd()).containsExactly("MKNOD");

    var withAdmin =
        one(
            render("plugin.privileged=false", "plugin.capabilities={MKNOD,SYS_ADMIN}"),
            DaemonSet.class);
    assertThat(
            withAdmin
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getSecurityContext()
                .getCapabilities()
                .getAdd())
        .containsExactly("MKNOD", "SYS_ADMIN");
  }

  @Test
  void mpsDaemonsRunInPodsOfThePluginsOwnImagePrivilegesAndNamespace() throws Exception {
    var container =
        one(render(), DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    var env = container.getEnv();
    assertThat(env(env, "TESSERA_MPS_DAEMONS")).isEqualTo("pods");
    assertThat(env(env, "TESSERA_MPS_DAEMON_IMAGE")).isEqualTo(container.getImage());
    assertThat(env(env, "TESSERA_MPS_DAEMON_PULL_POLICY"))
        .isEqualTo(container.getImagePullPolicy());
    assertThat(env(env, "TESSERA_MPS_DAEMON_NAMESPACE")).isEqualTo(NAMESPACE);
    assertThat(env(env, "TESSERA_MPS_DAEMON_PRIVILEGED")).isEqualTo("true");
    assertThat(env(env, "TESSERA_MPS_DAEMON_PRIORITY_CLASS")).isEqualTo("system-node-critical");
    assertThat(env(env, "TESSERA_DRIVER_ROOT_READ_ONLY")).isEqualTo("true");

    var unprivileged =
        one(
                render(
                    "plugin.privileged=false",
                    "plugin.driverRootWritable=true",
                    "plugin.mpsDaemons=processes"),
                DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getEnv();
    assertThat(env(unprivileged, "TESSERA_MPS_DAEMON_PRIVILEGED")).isEqualTo("false");
    assertThat(env(unprivileged, "TESSERA_DRIVER_ROOT_READ_ONLY")).isEqualTo("false");
    assertThat(env(unprivileged, "TESSERA_MPS_DAEMONS")).isEqualTo("processes");
  }

  @Test
  void theControllerRunsTwoReplicasThatElectALeaderInTheReleaseNamespace() throws Exception {
    Deployment deployment = one(render(), Deployment.class);
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    var env = deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
    assertThat(env(env, "TESSERA_CONTROLLER_ELECTION_NAMESPACE")).isEqualTo(NAMESPACE);
    assertThat(env(env, "TESSERA_CONTROLLER_LEASE_NAMESPACE")).isEqualTo(NAMESPACE);
    assertThat(env(env, "TESSERA_CONTROLLER_WEBHOOK_CERT_FILE")).isNotEmpty();
    assertThat(env(env, "TESSERA_CONTROLLER_METRICS_PORT")).isEqualTo("8080");
  }

  @Test
  void rbacGivesEachAppWhatItUsesAndNothingMore() throws Exception {
    List<HasMetadata> objects = render();
    assertThat(rules(objects, ClusterRole.class, "tessera-kubelet-plugin"))
        .containsExactlyInAnyOrder(
            "resource.k8s.io/resourceclaims: get",
            "resource.k8s.io/resourceclaims/status: update",
            // status.devices of our driver's entries only (checked per driver since 1.36)
            "resource.k8s.io/resourceclaims/driver[gpu.tessera.dev]: associated-node:update",
            "gpu.tessera.dev/gpunodes: get,create,update",
            "gpu.tessera.dev/gpunodes/status: update,patch",
            "/nodes: get",
            // Events on claims, which are in any namespace: create, and patch a repeat's count
            "/events: create,patch");
    assertThat(rules(objects, Role.class, "tessera-kubelet-plugin"))
        .containsExactly(
            "coordination.k8s.io/leases: get,create,update",
            // its MPS daemons' pods, held to its node by the policy own-mps-daemons
            "/pods: create,delete");
    assertThat(rules(objects, ClusterRole.class, "tessera-controller"))
        .containsExactlyInAnyOrder(
            "gpu.tessera.dev/gpunodes: get,list,watch",
            "gpu.tessera.dev/gpunodes/status: patch",
            "/nodes: get,list,watch",
            "resource.k8s.io/resourceslices: get,list,watch,create,update,patch,delete");
    // Its election Lease by name; a create cannot be named (the policy own-leases holds it).
    assertThat(rules(objects, Role.class, "tessera-controller"))
        .containsExactly(
            "coordination.k8s.io/leases: get,list,watch,create",
            "coordination.k8s.io/leases[tessera-controller]: update,patch");
    // A GpuNode's Events live in default (it is cluster-scoped): there and only there.
    assertThat(rules(objects, Role.class, "tessera-controller-events"))
        .containsExactly("/events: create,patch");
    assertThat(
            objects.stream()
                .filter(o -> o.getMetadata().getName().equals("tessera-controller-events"))
                .map(o -> o.getMetadata().getNamespace())
                .distinct())
        .containsExactly("default");
  }

  @Test
  void theImagesTheBuildTagsAreTheOnesTheChartRuns() throws Exception {
    String appVersion =
        Files.readString(CHART.resolve("Chart.yaml"))
            .lines()
            .filter(l -> l.startsWith("appVersion:"))
            .map(l -> l.substring("appVersion:".length()).strip().replace("\"", ""))
            .findFirst()
            .orElseThrow();
    // The jib profile tags its images with tessera.image.tag (hack/images with the appVersion).
    assertThat(Files.readString(REPO.resolve("pom.xml")))
        .contains("<tessera.image.repository>localhost/tessera</tessera.image.repository>")
        .contains("<tessera.image.tag>" + appVersion + "</tessera.image.tag>");
    DaemonSet ds = one(render(), DaemonSet.class);
    assertThat(ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("localhost/tessera/kubelet-plugin:" + appVersion);
  }

  @Test
  void theCrdIsTheManifestByteForByte() throws Exception {
    assertThat(Files.readString(CHART.resolve("crds/gpunode-crd.yaml")))
        .as("deploy/helm/tessera/crds/gpunode-crd.yaml must be a copy of deploy/manifests/")
        .isEqualTo(Files.readString(REPO.resolve("deploy/manifests/gpunode-crd.yaml")));
  }

  @Test
  void theDeviceClassesAreTheManifests() throws Exception {
    var manifests = new ArrayList<HasMetadata>();
    manifests.addAll(manifest("deviceclasses.yaml"));
    manifests.addAll(manifest("deviceclass-gpu-extended-resource.yaml"));
    List<HasMetadata> rendered = render("deviceClasses.extendedResource=true");
    assertThat(specsByName(rendered, DeviceClass.class))
        .isEqualTo(specsByName(manifests, DeviceClass.class));
    assertThat(render()).filteredOn(o -> o instanceof DeviceClass).hasSize(3);
    assertThat(render("deviceClasses.enabled=false")).noneMatch(o -> o instanceof DeviceClass);
  }

  @Test
  void theWebhookIsTheManifestWithTheCertificatesCa() throws Exception {
    List<HasMetadata> rendered = render();
    var webhooks = one(rendered, ValidatingWebhookConfiguration.class).getWebhooks();
    Secret tls = one(rendered, Secret.class);
    webhooks.forEach(
        w -> {
          assertThat(w.getClientConfig().getCaBundle()).isEqualTo(tls.getData().get("ca.crt"));
          w.getClientConfig().setCaBundle(null);
        });
    var manifest = one(manifest("admission-webhook.yaml"), ValidatingWebhookConfiguration.class);
    assertThat(tree(Map.of("w", webhooks))).isEqualTo(tree(Map.of("w", manifest.getWebhooks())));
    assertThat(tree(one(rendered, io.fabric8.kubernetes.api.model.Service.class).getSpec()))
        .isEqualTo(
            tree(
                one(
                        manifest("admission-webhook.yaml"),
                        io.fabric8.kubernetes.api.model.Service.class)
                    .getSpec()
                    .edit()
                    .addToSelector("app.kubernetes.io/instance", "tessera")
                    .build()));
  }

  @Test
  void theGeneratedCertificateServesTheWebhookForItsServiceName() throws Exception {
    Secret tls = one(render(), Secret.class);
    Path dir = Files.createTempDirectory("chart-tls");
    try {
      for (String key : List.of("tls.crt", "tls.key", "ca.crt")) {
        Files.write(dir.resolve(key), Base64.getDecoder().decode(tls.getData().get(key)));
      }
      assertThat(Files.readString(dir.resolve("tls.key"))).startsWith("-----BEGIN PRIVATE KEY");
      try (var server =
          new WebhookServer(
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              PemTls.serverContext(dir.resolve("tls.crt"), dir.resolve("tls.key")),
              AdmissionReviews.of("gpu.tessera.dev", JsonMapper.builder().build()))) {
        server.start();
        // As the API server does: trust only the CA, and check the Service's DNS name.
        Process client =
            new ProcessBuilder(
                    "openssl",
                    "s_client",
                    "-connect",
                    "127.0.0.1:" + server.port(),
                    "-CAfile",
                    dir.resolve("ca.crt").toString(),
                    "-verify_return_error",
                    "-verify_hostname",
                    "tessera-controller-webhook." + NAMESPACE + ".svc")
                .redirectErrorStream(true)
                .start();
        client.getOutputStream().close();
        assertThat(client.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(client.getInputStream().readAllBytes());
        assertThat(out).contains("Verify return code: 0 (ok)");
      }
    } finally {
      TestFiles.deleteTree(dir);
    }
  }

  @Test
  void certManagerIssuesTheCertificateAndInjectsTheCa() throws Exception {
    List<HasMetadata> objects = render("webhook.certManager.enabled=true");
    assertThat(objects).noneMatch(o -> o instanceof Secret);
    var vwc = one(objects, ValidatingWebhookConfiguration.class);
    assertThat(vwc.getMetadata().getAnnotations())
        .containsEntry("cert-manager.io/inject-ca-from", NAMESPACE + "/tessera-webhook");
    assertThat(vwc.getWebhooks())
        .allSatisfy(w -> assertThat(w.getClientConfig().getCaBundle()).isNull());
    var certificate =
        objects.stream()
            .filter(o -> o.getKind().equals("Certificate"))
            .filter(o -> o.getMetadata().getName().equals("tessera-webhook"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    Map<String, Object> spec = tree(certificate.getAdditionalProperties().get("spec"));
    assertThat(spec).containsEntry("secretName", "tessera-webhook-tls");
    assertThat(tree(spec.get("privateKey"))).containsEntry("encoding", "PKCS8");

    var withIssuer =
        render(
            "webhook.certManager.enabled=true",
            "webhook.certManager.issuerRef.name=corp",
            "webhook.certManager.issuerRef.kind=ClusterIssuer");
    assertThat(withIssuer).noneMatch(o -> o.getKind().equals("Issuer"));
  }

  @Test
  void podMonitorsAreOptionalAndScrapeEachAppsNamedMetricsPort() throws Exception {
    assertThat(render()).noneMatch(o -> o.getKind().equals("PodMonitor"));

    var monitors =
        render(
                "podMonitor.enabled=true",
                "podMonitor.interval=15s",
                "podMonitor.labels.release=kps")
            .stream()
            .filter(o -> o.getKind().equals("PodMonitor"))
            .map(GenericKubernetesResource.class::cast)
            .toList();
    assertThat(monitors)
        .extracting(o -> o.getMetadata().getName())
        .containsExactlyInAnyOrder("tessera-kubelet-plugin", "tessera-controller");
    DaemonSet ds = one(render(), DaemonSet.class);
    for (var monitor : monitors) {
      assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
      assertThat(monitor.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
      assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kps");
      Map<String, Object> spec = tree(monitor.getAdditionalProperties().get("spec"));
      @SuppressWarnings("unchecked")
      var endpoints = (List<Map<String, Object>>) spec.get("podMetricsEndpoints");
      assertThat(endpoints)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e).containsEntry("port", "metrics").containsEntry("interval", "15s");
                assertThat(e.get("path"))
                    .isEqualTo(
                        monitor.getMetadata().getName().endsWith("plugin")
                            ? "/prometheus"
                            : "/metrics");
              });
      if (monitor.getMetadata().getName().endsWith("plugin")) {
        Map<String, Object> selector = tree(spec.get("selector"));
        assertThat(tree(selector.get("matchLabels")))
            .isEqualTo(ds.getSpec().getSelector().getMatchLabels());
      }
    }
    assertThat(ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getPorts())
        .anySatisfy(p -> assertThat(p.getName()).isEqualTo("metrics"));

    // The controller without metrics has no PodMonitor; the plugin's random port cannot be scraped.
    assertThat(render("podMonitor.enabled=true", "controller.metricsPort=-1"))
        .filteredOn(o -> o.getKind().equals("PodMonitor"))
        .extracting(o -> o.getMetadata().getName())
        .containsExactly("tessera-kubelet-plugin");
    var refused =
        helm(
            List.of(
                "template",
                "tessera",
                CHART.toString(),
                "--set",
                "podMonitor.enabled=true",
                "--set",
                "plugin.metricsPort=-1"));
    assertThat(refused.errors()).contains("podMonitor.enabled needs plugin.metricsPort >= 0");
  }

  @Test
  void theWebhookAndThePolicyCanBeLeftOut() throws Exception {
    List<HasMetadata> objects = render("webhook.enabled=false", "admissionPolicy.enabled=false");
    assertThat(objects.stream().map(HasMetadata::getKind))
        .doesNotContain(
            "Secret",
            "Service",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding");
    var env = one(objects, Deployment.class).getSpec().getTemplate().getSpec().getContainers();
    assertThat(env.get(0).getEnv()).noneMatch(e -> e.getName().contains("WEBHOOK"));
  }

  @Test
  void aLocalClusterGetsHostNetworkAndTheApiServersAddress() throws Exception {
    List<HasMetadata> objects =
        render("hostNetwork=true", "apiServer.host=192.0.2.2", "apiServer.port=6443");
    var plugin = one(objects, DaemonSet.class).getSpec().getTemplate().getSpec();
    var controller = one(objects, Deployment.class).getSpec().getTemplate().getSpec();
    for (var pod : List.of(plugin, controller)) {
      assertThat(pod.getHostNetwork()).isTrue();
      var env = pod.getContainers().get(0).getEnv();
      assertThat(env(env, "KUBERNETES_SERVICE_HOST")).isEqualTo("192.0.2.2");
      assertThat(env(env, "KUBERNETES_SERVICE_PORT")).isEqualTo("6443");
    }
  }

  @Test
  void bothAppsLogAtTheChosenLevelAndFormat() throws Exception {
    for (var app : List.of(DaemonSet.class, Deployment.class)) {
      var defaults = firstContainer(render(), app).getEnv();
      assertThat(env(defaults, "LOG_LEVEL")).as(app.getSimpleName()).isEqualTo("INFO");
      assertThat(env(defaults, "LOG_FORMAT")).as(app.getSimpleName()).isEqualTo("text");
      var chosen =
          firstContainer(render("logging.level=DEBUG", "logging.format=json"), app).getEnv();
      assertThat(env(chosen, "LOG_LEVEL")).as(app.getSimpleName()).isEqualTo("DEBUG");
      assertThat(env(chosen, "LOG_FORMAT")).as(app.getSimpleName()).isEqualTo("json");
    }
    assertThatThrownBy(() -> render("logging.format=yaml")).hasMessageContaining("logging");
  }

  /**
   * A flag given in {@code javaOptions} that the image's {@code jvm.options} sets too takes effect:
   * the container's env from the chart, a JVM started as the image's entrypoint starts it (the
   * options file on its command line), and the flag's final value read from that JVM.
   */
  @Test
  void theJavaOptionsWinOverTheImagesOwnFlags() throws Exception {
    javaOptionsWin(DaemonSet.class, "plugin", REPO.resolve("kubelet-plugin/jvm.options"));
    javaOptionsWin(Deployment.class, "controller", REPO.resolve("controller/jvm.options"));
  }

  private static void javaOptionsWin(
      Class<? extends HasMetadata> workload, String app, Path imageOptions) throws Exception {
    assertThat(Files.readAllLines(imageOptions)).as("the image's flags").contains("-Xss512k");
    var given = firstContainer(render(app + ".javaOptions=-Xss1m"), workload).getEnv();
    assertThat(threadStackKib(imageOptions, given)).as(app + " with -Xss1m").isEqualTo("1024");
    var defaults = firstContainer(render(), workload).getEnv();
    assertThat(threadStackKib(imageOptions, defaults)).as(app + " by default").isEqualTo("512");
  }

  /** {@code ThreadStackSize} of a JVM started with the image's flags file and the env's values. */
  private static String threadStackKib(Path imageOptions, List<EnvVar> env) throws Exception {
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var builder =
        new ProcessBuilder(java, "@" + imageOptions, "-XX:+PrintFlagsFinal", "-version")
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.endsWith("JAVA_OPTIONS") || name.equals("JAVA_TOOL_OPTIONS"));
    env.stream()
        .filter(e -> e.getValue() != null)
        .forEach(e -> builder.environment().put(e.getName(), e.getValue()));
    Process jvm = builder.start();
    String out = new String(jvm.getInputStream().readAllBytes());
    assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(jvm.exitValue()).as(out).isZero();
    return out.lines()
        .filter(l -> l.trim().startsWith("intx ThreadStackSize "))
        .map(l -> l.trim().split("\\s+")[3])
        .findFirst()
        .orElseThrow();
  }

  @Test
  void hostNetworkControllerReplicasAreReplacedOneAtATimeNotSurged() throws Exception {
    // A surge pod cannot bind the old one's ports on the same node: the upgrade never finished.
    var strategy = one(render("hostNetwork=true"), Deployment.class).getSpec().getStrategy();
    assertThat(strategy.getType()).isEqualTo("RollingUpdate");
    assertThat(strategy.getRollingUpdate().getMaxSurge().getIntVal()).isZero();
    assertThat(strategy.getRollingUpdate().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(one(render(), Deployment.class).getSpec().getStrategy()).isNull();
  }

  @Test
  void theUnhealthyTaintEffectReachesTheControllerAndOnlyNoScheduleOrNoExecutePass()
      throws Exception {
    var env = firstContainer(render("controller.unhealthyTaintEffect=NoExecute"), Deployment.class);
    assertThat(env(env.getEnv(), "TESSERA_CONTROLLER_UNHEALTHY_TAINT_EFFECT"))
        .isEqualTo("NoExecute");
    assertThat(
            env(
                firstContainer(render(), Deployment.class).getEnv(),
                "TESSERA_CONTROLLER_UNHEALTHY_TAINT_EFFECT"))
        .isEqualTo("NoSchedule");
    assertThatThrownBy(() -> render("controller.unhealthyTaintEffect=None"))
        .hasMessageContaining("unhealthyTaintEffect");
  }

  @Test
  void readinessProbesCanBeLeftOut() throws Exception {
    var probed = render();
    assertThat(firstContainer(probed, DaemonSet.class).getReadinessProbe()).isNotNull();
    assertThat(firstContainer(probed, Deployment.class).getReadinessProbe()).isNotNull();
    var unprobed = render("readinessProbes=false");
    assertThat(firstContainer(unprobed, DaemonSet.class).getReadinessProbe()).isNull();
    var controller = firstContainer(unprobed, Deployment.class);
    assertThat(controller.getReadinessProbe()).isNull();
    assertThat(controller.getPorts()).extracting(p -> p.getName()).contains("metrics", "webhook");
  }

  /** The app container of the one DaemonSet or Deployment rendered. */
  private static Container firstContainer(
      List<HasMetadata> objects, Class<? extends HasMetadata> type) {
    HasMetadata workload = one(objects, type);
    var pod =
        workload instanceof DaemonSet ds
            ? ds.getSpec().getTemplate().getSpec()
            : ((Deployment) workload).getSpec().getTemplate().getSpec();
    return pod.getContainers().get(0);
  }

  @Test
  void theSchemaRefusesBadValues() throws Exception {
    for (String bad :
        List.of(
            "controller.defaultOffering=sometimes",
            "plugin.driverRoot=/usr/",
            "plugin.driverRoot=driver",
            "webhook.failurePolicy=Maybe",
            "plugin.image.pullPolicy=Sometimes",
            "plugin.capabilities={CAP_SYS_ADMIN}",
            "plugin.mpsDaemons=threads",
            "logging.level=LOUD",
            "unknownKey=1")) {
      var result =
          helm(List.of("template", "tessera", CHART.toString(), "-n", NAMESPACE, "--set", bad));
      assertThat(result.exitCode()).as(bad).isNotZero();
      assertThat(result.errors()).as(bad).contains("values don't meet the specifications");
    }
  }

  private static List<HasMetadata> manifest(String name) throws Exception {
    return parse(Files.readString(REPO.resolve("deploy/manifests").resolve(name)));
  }

  private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
    var found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static Map<String, Object> specsByName(
      List<HasMetadata> objects, Class<DeviceClass> type) {
    return objects.stream()
        .filter(type::isInstance)
        .map(type::cast)
        .collect(Collectors.toMap(c -> c.getMetadata().getName(), c -> tree(c.getSpec())));
  }

  private static List<String> rules(
      List<HasMetadata> objects, Class<? extends HasMetadata> type, String name) {
    List<PolicyRule> rules =
        objects.stream()
            .filter(type::isInstance)
            .filter(o -> o.getMetadata().getName().equals(name))
            .map(o -> o instanceof ClusterRole c ? c.getRules() : ((Role) o).getRules())
            .findFirst()
            .orElseThrow();
    var lines = new ArrayList<String>();
    for (PolicyRule rule : rules) {
      String names = rule.getResourceNames().isEmpty() ? "" : rule.getResourceNames().toString();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          lines.add(group + "/" + resource + names + ": " + String.join(",", rule.getVerbs()));
        }
      }
    }
    return lines;
  }

  private static String env(List<EnvVar> env, String name) {
    return env.stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElse(null);
  }

  private static String fieldRef(List<EnvVar> env, String name) {
    return env.stream()
        .filter(e -> e.getName().equals(name))
        .map(e -> e.getValueFrom().getFieldRef().getFieldPath())
        .findFirst()
        .orElse(null);
  }
}
