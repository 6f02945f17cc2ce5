package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kind scripts ({@code hack/kind/up}, {@code demo}, {@code down}) on Docker's path, without a
 * Docker engine: stand-ins for docker, kind, kubectl and Helm record what the scripts ask of them,
 * and the test holds the scripts to it — the kind config (CDI on, the simulated driver roots
 * mounted at their own path, or the NVIDIA runtime's device mount for real GPUs), the images
 * loaded, the Helm values for kind, clear refusals without an engine, and that down removes what up
 * made. One test runs the real kind on up's config, as far as an engine is needed. The podman path
 * runs for real in CI ({@code hack/test-kind}: up, demo --check and down on podman, the host
 * checked unchanged after).
 */
class KindScriptsIT {
  private static final Path REPO = HelmChart.REPO;
  private static final Path UP = REPO.resolve("hack/kind/up");
  private static final Path DEMO = REPO.resolve("hack/kind/demo");
  private static final Path DOWN = REPO.resolve("hack/kind/down");
  private static final String PATH = System.getenv("PATH");
  private static final String NODE = "tessera-control-plane";
  private static final String NODE_IMAGE =
      "kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5";

  /** A Docker whose engine answers, and whose default runtime is $STANDIN_DOCKER_RUNTIME. */
  private static final String DOCKER =
      """
      case "$1" in
        info | version)
          if [ -n "${STANDIN_DOCKER_DOWN:-}" ]; then
            echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2
            exit 1
          fi
          case "$*" in
            *DefaultRuntime*) echo "${STANDIN_DOCKER_RUNTIME:-runc}" ;;
            *Components*) echo "Engine;containerd;runc;docker-init;" ;;
            *Server.Version*) echo 27.5.1 ;;
          esac ;;
      esac
      """;

  /** A kind that keeps the names of the clusters it was asked to create, until deleted. */
  private static final String KIND =
      """
      name=kind
      for ((i = 1; i < $#; i++)); do [ "${!i}" = --name ] && { j=$((i + 1)); name=${!j}; }; done
      touch "$STANDIN_STATE/clusters"
      case "$1 $2" in
        "get clusters") cat "$STANDIN_STATE/clusters" ;;
        "create cluster") echo "$name" >>"$STANDIN_STATE/clusters" ;;
        "delete cluster") grep -vx "$name" "$STANDIN_STATE/clusters" >"$STANDIN_STATE/c" || true
                          mv "$STANDIN_STATE/c" "$STANDIN_STATE/clusters" ;;
      esac
      """;

  /**
   * A kubectl in front of a cluster where all goes well: the node's slices follow its offering
   * label, applied pods are named from the file, every pod prints a GPU and {@code done}.
   */
  private static final String KUBECTL =
      """
      offering=$(cat "$STANDIN_STATE/offering" 2>/dev/null || echo exclusive)
      case "$*" in
        *" label node "*)
          case "$*" in
            *gpu.tessera.dev/offering-*) rm -f "$STANDIN_STATE/offering" ;;
            *gpu.tessera.dev/offering=*) o="$*"; echo "${o##*gpu.tessera.dev/offering=}" >"$STANDIN_STATE/offering" ;;
          esac ;;
        *" get resourceslices "*name}*)
          case "$offering" in
            mig-*) echo gpu-0 gpu-0-mig-1g10gb-0 ;;
            *) echo gpu-0 gpu-1 gpu-2 gpu-3 ;;
          esac ;;
        *" get resourceslices "*allowMultipleAllocations}*)
          if [ "$offering" = shared ]; then echo true true true true; fi ;;
        *" get -f "*)
          for ((i = 1; i < $#; i++)); do [ "${!i}" = -f ] && { j=$((i + 1)); file=${!j}; }; done
          awk '/^---/ {pod = 0} /^kind: Pod$/ {pod = 1} pod && /^  name: / {print "Pod/default/" $2; pod = 0}' "$file" ;;
        *" logs "*--prefix*)
          for ((i = 1; i < $#; i++)); do [ "${!i}" = logs ] && { j=$((i + 1)); pod=${!j}; }; done
          printf '[pod/%s/ctr] %s\\n' "$pod" NVIDIA_VISIBLE_DEVICES=0 "$pod" done ;;
        *" logs "*) printf '%s\\n' NVIDIA_VISIBLE_DEVICES=0 done ;;
        *" get pod "*) echo Running ;;
      esac
      """;

  @TempDir Path work;
  private StandIns standIns;
  private Path state;
  private Path images;

  @BeforeEach
  void standIns() throws IOException {
    standIns = new StandIns(work);
    standIns.add("docker", DOCKER);
    standIns.add("kubectl", KUBECTL);
    standIns.add("helm", "");
    state = work.resolve("kind-state");
    // hack/images needs minutes and a JDK's jlink; the scripts take prebuilt archives too.
    images = Files.createDirectories(work.resolve("images"));
    for (String image : List.of("kubelet-plugin", "controller", "busybox")) {
      Files.writeString(images.resolve(image + ".oci.tar"), "an OCI archive of " + image);
    }
  }

  /** The scripts' environment: the stand-ins for kind and Helm, up's folder and images here. */
  private Map<String, String> env(String... more) throws IOException {
    var env = new HashMap<String, String>();
    env.put("TESSERA_KIND_BIN", standIns.add("kind", KIND).toString());
    env.put("TESSERA_HELM", standIns.bin().resolve("helm").toString());
    env.put("TESSERA_KIND_DIR", state.toString());
    env.put("TESSERA_KIND_ENGINE", "docker");
    env.put("TESSERA_IMAGES", images.toString());
    for (int i = 0; i < more.length; i += 2) {
      env.put(more[i], more[i + 1]);
    }
    return env;
  }

  private StandIns.Result up(Map<String, String> env) throws Exception {
    return standIns.run(UP, PATH, env);
  }

  @Test
  void upMakesAClusterWithCdiAndTheSimulatedDriverRootThenInstallsTesseraForKind()
      throws Exception {
    var result = up(env("TESSERA_KIND_GPUS", "simulated"));
    assertThat(result.exitCode()).as(result.errors()).isZero();
    Path roots = state.resolve("driver-roots");
    Path root = roots.resolve("h100x4");

    assertThat(standIns.calls("kind"))
        .containsSubsequence(
            "kind create cluster --name tessera --image "
                + NODE_IMAGE
                + " --config "
                + state.resolve("kind-config.yaml")
                + " --kubeconfig "
                + state.resolve("kubeconfig")
                + " --wait 5m",
            "kind load image-archive --name tessera " + state.resolve("images/busybox.oci.tar"),
            "kind load image-archive --name tessera " + state.resolve("images/controller.oci.tar"),
            "kind load image-archive --name tessera "
                + state.resolve("images/kubelet-plugin.oci.tar"));
    Map<String, Object> config = kindConfig();
    assertCdiEnabled(config);
    assertThat(mounts(config))
        .containsExactly(Map.of("hostPath", roots.toString(), "containerPath", roots.toString()));
    // The simulated node: 4 H100s, laid out by the NVML simulator's setup where the mount says;
    // beside it the static MIG scenario's 2 H100s.
    assertThat(Files.readString(root.resolve("etc/mock-nvml/config")))
        .contains("profile=H100-SXM5-80GB", "gpus=4", "seed=" + NODE);
    assertThat(Files.readString(roots.resolve("h100x2-mig/etc/mock-nvml/config")))
        .contains("profile=H100-SXM5-80GB", "gpus=2");

    String install = one(standIns.calls("helm"));
    assertThat(install)
        .startsWith(
            "helm upgrade --install tessera "
                + REPO.resolve("deploy/helm/tessera")
                + " -n tessera-system --create-namespace --kubeconfig "
                + state.resolve("kubeconfig")
                + " --wait")
        .contains(
            "--set plugin.image.pullPolicy=Never",
            "--set controller.image.pullPolicy=Never",
            "--set plugin.driverRoot=" + root,
            "--set plugin.driverRootWritable=true",
            "--set deviceClasses.extendedResource=true",
            "--set plugin.env.TESSERA_HEALTH_RECOVERY=30s")
        // kind has kube-proxy and a CNI: none of the local cluster's host-network settings.
        .doesNotContain("hostNetwork", "apiServer.host", "webhook.url");
    // The images are in the node before Tessera is installed.
    var lines = standIns.calls().stream().map(StandIns.Call::line).toList();
    assertThat(lines.indexOf(install)).isGreaterThan(lines.indexOf(last(standIns.calls("kind"))));
    assertThat(Files.readString(state.resolve("gpus")).strip()).isEqualTo("simulated");
  }

  @Test
  void onAHostWithGpusAndTheToolkitUpPassesTheGpusIntoTheNodeAndInstallsWithDriverRootSlash()
      throws Exception {
    standIns.add("nvidia-smi", "echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)'");
    standIns.add(
        "nvidia-ctk",
        "[ \"$1\" = config ] && echo '    accept-nvidia-visible-devices-as-volume-mounts = true'");
    var result = up(env("STANDIN_DOCKER_RUNTIME", "nvidia")); // TESSERA_KIND_GPUS: auto

    assertThat(result.exitCode()).as(result.errors()).isZero();
    assertThat(result.output()).contains("GPUs: real (auto-detected");
    Map<String, Object> config = kindConfig();
    assertCdiEnabled(config);
    assertThat(mounts(config))
        .containsExactly(
            Map.of(
                "hostPath", "/dev/null",
                "containerPath", "/var/run/nvidia-container-devices/all"));
    assertThat(state.resolve("driver-roots")).doesNotExist();
    assertThat(standIns.calls("docker"))
        .contains("docker exec " + NODE + " umount -R /proc/driver/nvidia");
    assertThat(one(standIns.calls("helm")))
        .containsPattern("--set plugin\\.driverRoot=/( |$)")
        .contains("--set plugin.image.pullPolicy=Never")
        .doesNotContain("TESSERA_HEALTH_RECOVERY", "driverRootWritable");
  }

  @Test
  void realGpusWithoutTheToolkitsVolumeMountSettingAreRefusedBeforeAnythingIsMade()
      throws Exception {
    standIns.add("nvidia-smi", "echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)'");
    standIns.add("nvidia-ctk", "[ \"$1\" = config ] && echo 'disable-require = false'");
    var result = up(env("TESSERA_KIND_GPUS", "real", "STANDIN_DOCKER_RUNTIME", "nvidia"));

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.errors())
        .contains(
            "nvidia-ctk config --set accept-nvidia-visible-devices-as-volume-mounts=true --in-place");
    assertThat(standIns.calls("kind")).noneMatch(c -> c.startsWith("kind create"));
    assertThat(state).doesNotExist();

    var withRunc = up(env("TESSERA_KIND_GPUS", "real"));
    assertThat(withRunc.errors()).contains("default runtime to be nvidia");
  }

  @Test
  void withoutADockerEngineEachScriptSaysSoAndMakesNothing() throws Exception {
    var noEngine = env("STANDIN_DOCKER_DOWN", "1");
    for (Path script : List.of(UP, DOWN)) {
      var result = standIns.run(script, PATH, noEngine);
      assertThat(result.exitCode()).isNotZero();
      assertThat(result.errors())
          .contains("the Docker engine is not reachable")
          .contains("Cannot connect to the Docker daemon");
    }
    Files.delete(standIns.bin().resolve("docker"));
    var noDocker =
        standIns.run(
            UP, StandIns.without("docker", PATH, work), env("TESSERA_KIND_GPUS", "simulated"));
    assertThat(noDocker.exitCode()).isNotZero();
    assertThat(noDocker.errors())
        .contains("no container engine: kind runs its nodes as containers of Docker or podman");
    TestFiles.deleteTree(work.resolve("path-without-docker")); // links out of the temp dir
    assertThat(standIns.calls("kind")).isEmpty();
    assertThat(state).doesNotExist();
  }

  @Test
  void aFailedInstallRemovesTheClusterAndWhatUpMade() throws Exception {
    standIns.add(
        "helm", "echo 'Error: INSTALLATION FAILED: context deadline exceeded' >&2; exit 1");
    var result = up(env("TESSERA_KIND_GPUS", "simulated"));

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.errors()).contains("INSTALLATION FAILED", "up failed: removing what it made");
    assertThat(standIns.calls("kind"))
        .contains("kind delete cluster --name tessera --kubeconfig " + state.resolve("kubeconfig"));
    assertThat(state).doesNotExist();
  }

  @Test
  void downDeletesTheClusterAndWhatUpMadeAndIsSafeToRunAgain() throws Exception {
    var env = env("TESSERA_KIND_GPUS", "simulated");
    assertThat(up(env).exitCode()).isZero();
    Path roots = state.resolve("driver-roots");

    var down = standIns.run(DOWN, PATH, env);
    assertThat(down.exitCode()).as(down.errors()).isZero();
    // The node removes what its pods wrote into the mounted root, then the node goes.
    assertThat(standIns.calls())
        .extracting(StandIns.Call::line)
        .containsSubsequence(
            "docker exec " + NODE + " sh -c rm -rf \"$1\"/* sh " + roots,
            "kind delete cluster --name tessera --kubeconfig " + state.resolve("kubeconfig"));
    assertThat(state).doesNotExist();

    var again = standIns.run(DOWN, PATH, env);
    assertThat(again.exitCode()).isZero();
    assertThat(again.output()).contains("no kind cluster tessera");
  }

  @Test
  void theDemoRunsEachScenarioPrintsWhatItsPodsSawAndDeletesIt() throws Exception {
    var env = env("TESSERA_KIND_GPUS", "simulated");
    assertThat(up(env).exitCode()).isZero();
    var demo =
        standIns.run(
            DEMO,
            PATH,
            env,
            "01-gpu-per-pod",
            "08-mig-static-by-profile",
            "11-mig-dynamic-by-profile",
            "12-unhealthy-gpu-avoided");
    assertThat(demo.exitCode()).as(demo.errors()).isZero();

    Path scenarios = REPO.resolve("demo/scenarios");
    var kubectl = standIns.calls("kubectl");
    String kube =
        "kubectl --kubeconfig " + state.resolve("kubeconfig") + " --context kind-tessera ";
    for (String s :
        List.of("01-gpu-per-pod", "08-mig-static-by-profile", "11-mig-dynamic-by-profile")) {
      Path file = scenarios.resolve(s).resolve("scenario.yaml");
      assertThat(kubectl)
          .containsSubsequence(
              kube + "apply -f " + file,
              kube + "delete -f " + file + " --ignore-not-found --wait --timeout 120s");
    }
    assertThat(demo.output())
        .contains("== 01-gpu-per-pod", "one GPU per pod from a ResourceClaimTemplate")
        .contains("-- gpu-pod-1 saw:", "-- gpu-pod-2 saw:", "[pod/gpu-pod-2/ctr] done")
        .contains("-- mig-dynamic-pod saw:", "-- mig-pod saw:")
        // What each shows (its row of demo/README.md), in number order, then the summary.
        .contains("   one GPU per pod from a ResourceClaimTemplate; two pods, two distinct GPUs\n")
        .containsPattern(
            "(?s)== 01-gpu-per-pod.*== 08-mig-static-by-profile.*== 11-mig-dynamic-by-profile"
                + ".*== 12-unhealthy-gpu-avoided.*== summary")
        .containsPattern("(?m)^  01-gpu-per-pod +ran \\(2 pods\\) +\\d+s  one GPU per pod")
        .containsPattern("(?m)^  08-mig-static-by-profile +ran \\(1 pod\\) +\\d+s  a MIG device")
        .contains("export KUBECONFIG=" + state.resolve("kubeconfig"))
        .contains("kubectl get gpunodes,resourceslices,resourceclaims -A")
        .contains("To remove the cluster: hack/kind/down");
    // Scenario 11 on the node offered as mig-dynamic, and the node offered as before after it.
    assertThat(kubectl)
        .containsSubsequence(
            kube + "label node " + NODE + " --overwrite gpu.tessera.dev/offering=mig-dynamic",
            kube + "apply -f " + scenarios.resolve("11-mig-dynamic-by-profile/scenario.yaml"),
            kube + "label node " + NODE + " gpu.tessera.dev/offering-");
    // Scenario 8: the plugin moved to the static MIG root and back, the node offered as mig-static.
    assertThat(standIns.calls("helm"))
        .anyMatch(
            c -> c.contains("--set plugin.driverRoot=" + state.resolve("driver-roots/h100x2-mig")))
        .anyMatch(
            c ->
                c.contains(
                    "--set plugin.driverRoot="
                        + state.resolve("driver-roots/h100x4")
                        + " --wait --timeout 3m"));
    assertThat(kubectl)
        .contains(kube + "label node " + NODE + " --overwrite gpu.tessera.dev/offering=mig-static");
    // Scenario 12: the simulator reports critical XIDs on three of the four GPUs.
    assertThat(Files.readAllLines(state.resolve("driver-roots/h100x4/var/lib/mock-nvml/events")))
        .containsExactly("0 xid 48", "1 xid 48", "2 xid 48", "3 xid 13");
  }

  @Test
  void theDemoWithoutAClusterFromUpSaysSo() throws Exception {
    var demo = standIns.run(DEMO, PATH, env());
    assertThat(demo.exitCode()).isNotZero();
    assertThat(demo.errors()).contains("run hack/kind/up first");
  }

  /**
   * The real kind v0.33.0 (built from the Go module proxy and cached, as up builds it) reads the
   * config up writes, validates it and turns it into the node's {@code docker run}: the driver root
   * mounted at its own path, the pinned node image. Only the Docker engine is missing: the stand-in
   * answers what kind asks before it runs a container, and refuses to run one.
   */
  @Test
  void theRealKindAcceptsUpsConfigAndMountsTheDriverRootIntoTheNode() throws Exception {
    String kind = realKind();
    standIns.add(
        "docker",
        """
        case "$1 ${2:-}" in
          "info --format") echo '{"CgroupVersion":"2","CgroupDriver":"systemd","MemoryLimit":true,"PidsLimit":true,"CPUShares":true}' ;;
          "info "|"ps -a"|"inspect --type=image"|"-v ") ;;
          "version --format") echo 27.5.1 ;;
          "network ls") echo 0123456789ab ;;
          *) echo "stand-in docker: no engine to $1" >&2; exit 1 ;;
        esac
        """);
    var env =
        env(
            "TESSERA_KIND_GPUS",
            "simulated",
            "TESSERA_KIND_BIN",
            kind,
            "TESSERA_KIND_IMAGE",
            NODE_IMAGE);
    var result = up(env);

    assertThat(result.exitCode()).isNotZero();
    Path root = state.resolve("driver-roots");
    String run = one(standIns.calls("docker").stream().filter(c -> c.startsWith("docker run")));
    assertThat(run)
        .contains("--name " + NODE, "--volume=" + root + ":" + root)
        .endsWith(NODE_IMAGE);
    assertThat(result.errors())
        .contains("stand-in docker: no engine to run", "up failed: removing what it made");
    assertThat(state).doesNotExist();
  }

  @Test
  void theScriptsAreShellcheckClean() throws Exception {
    ShellCheck.assertClean(
        UP,
        DEMO,
        DOWN,
        REPO.resolve("hack/kind/lib.sh"),
        REPO.resolve("hack/kind/host.sh"),
        REPO.resolve("hack/kind/install-tessera"),
        REPO.resolve("hack/kind/node-image"),
        REPO.resolve("hack/kind/node/entrypoint"),
        REPO.resolve("hack/kind/node/bin/import-images"),
        REPO.resolve("hack/test-kind"));
  }

  /** kind as up finds it: built once from the Go module proxy; skipped where it cannot be. */
  private static String realKind() throws Exception {
    Process p =
        new ProcessBuilder("bash", "-c", ". " + REPO.resolve("hack/kind/lib.sh") + " && kind_bin")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String kind = new String(p.getInputStream().readAllBytes()).strip();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      if ("true".equals(System.getenv("CI"))) {
        fail("kind could not be built here");
      }
      Assumptions.abort("kind cannot be built here (no Go?)");
    }
    return kind;
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> kindConfig() throws IOException {
    return new KubernetesSerialization()
        .unmarshal(Files.readString(state.resolve("kind-config.yaml")), Map.class);
  }

  /** CDI on in containerd, for the config version of kind's node image (2) and the next (3). */
  private static void assertCdiEnabled(Map<String, Object> config) {
    assertThat((List<?>) config.get("containerdConfigPatches"))
        .map(String.class::cast)
        .anySatisfy(
            patch ->
                assertThat(patch)
                    .contains("version = 2", "[plugins.\"io.containerd.grpc.v1.cri\"]")
                    .contains("enable_cdi = true", "\"/var/run/cdi\""))
        .anySatisfy(
            patch ->
                assertThat(patch)
                    .contains("version = 3", "[plugins.\"io.containerd.cri.v1.runtime\"]")
                    .contains("enable_cdi = true", "\"/var/run/cdi\""));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> mounts(Map<String, Object> config) {
    var nodes = (List<Map<String, Object>>) config.get("nodes");
    assertThat(nodes).hasSize(1);
    assertThat(nodes.get(0)).containsEntry("role", "control-plane");
    return (List<Map<String, Object>>) nodes.get(0).get("extraMounts");
  }

  private static String one(List<String> calls) {
    assertThat(calls).hasSize(1);
    return calls.get(0);
  }

  private static String one(java.util.stream.Stream<String> calls) {
    return one(calls.toList());
  }

  private static String last(List<String> calls) {
    return calls.get(calls.size() - 1);
  }
}
