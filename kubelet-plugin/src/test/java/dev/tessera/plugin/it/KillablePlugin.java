package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The node plugin as its own process for crash tests: started from the shaded jar with its
 * production JVM flags on a simulated driver root, registered by a fake kubelet, killed with
 * SIGKILL (as a container kill), started again. Also what those tests read back: the node's MPS
 * daemons, the checkpoint, CDI specs, FIFOs put where the plugin's next write goes.
 */
final class KillablePlugin implements AutoCloseable {
  static final Path JAR = Path.of("target/tessera-kubelet-plugin.jar").toAbsolutePath();

  private final Path dir;
  private final Path root;
  private final Path kubeconfig;
  private final String javaOpts;
  private final JsonMapper json = JsonMapper.builder().build();
  private final List<Path> fifos = new ArrayList<>();
  private PluginProcess plugin;
  private KubeletClient kubelet;

  /**
   * @param dir the test's directory: the node's dirs go to {@code dir/node}, CDI specs to {@code
   *     dir/cdi}
   */
  KillablePlugin(Path dir, Path root, Path kubeconfig) throws IOException {
    this(dir, root, kubeconfig, "");
  }

  /**
   * @param extraJavaOpts JVM flags after the production ones, e.g. a log of the JVM's collections
   */
  KillablePlugin(Path dir, Path root, Path kubeconfig, String extraJavaOpts) throws IOException {
    assertThat(JAR).as("the shaded plugin jar (built at package)").exists();
    this.dir = dir;
    this.root = root;
    this.kubeconfig = kubeconfig;
    this.javaOpts = PluginProcess.shippedJvmOptions() + " " + extraJavaOpts;
  }

  /** Starts the plugin and registers it, as the kubelet does once it sees the socket. */
  void start() throws Exception {
    plugin =
        PluginProcess.start(
            JAR, dir.resolve("node"), dir.resolve("cdi"), root, kubeconfig, javaOpts, "INFO");
    kubelet = new KubeletClient(plugin.registrationSocket(), plugin.draSocket());
    plugin.awaitRegistrationSocket();
    // The socket file exists from bind(); on a loaded machine the server may not accept yet.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              kubelet.notifyRegistration(true, "");
              return true;
            });
  }

  /** Stops the plugin as a pod termination would. */
  void stop() throws Exception {
    if (kubelet != null) {
      kubelet.close();
      kubelet = null;
    }
    if (plugin != null) {
      plugin.close();
      plugin = null;
    }
  }

  /**
   * SIGKILL of the JVM and of the tool it runs (as a container kill); not of an MPS daemon it had
   * started. Its sockets stay behind, as a killed plugin leaves them.
   */
  void kill() throws Exception {
    plugin.kill(mpsDaemons());
    Path socket = plugin.registrationSocket();
    stop();
    // The next start's wait must see the new socket.
    Files.deleteIfExists(socket);
  }

  KubeletClient kubelet() {
    return kubelet;
  }

  PluginProcess process() {
    return plugin;
  }

  /** The prepare error the plugin answers for the claim, empty on success. */
  String prepareError(ResourceClaim claim) {
    return kubelet.prepare(claim).get(claim.getMetadata().getUid()).getError();
  }

  /** Where the plugin's MPS daemons keep their directories. */
  Path mpsRoot() {
    return dir.resolve("node/plugins/gpu.tessera.dev/mps");
  }

  /**
   * The simulator's MPS daemons of this node: {@code sh -c … mps-daemon <pipe dir>}. Not a child of
   * one: the daemon's loop forks {@code touch} and {@code sleep} twice a second, and a child caught
   * between its fork and its exec still shows the daemon's command line.
   */
  List<ProcessHandle> mpsDaemons() {
    String mps = mpsRoot().toString();
    Predicate<ProcessHandle> daemon =
        p -> {
          Optional<String[]> args = p.info().arguments();
          return args.isPresent()
              && List.of(args.get()).contains("mps-daemon")
              && String.join(" ", args.get()).contains(mps);
        };
    try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
      return all.filter(daemon)
          .filter(p -> p.parent().map(parent -> !daemon.test(parent)).orElse(true))
          .toList();
    }
  }

  /** A FIFO at {@code path}: the plugin's write there blocks until someone reads it. */
  void fifo(Path path) throws Exception {
    Files.createDirectories(path.getParent());
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).isZero();
    fifos.add(path);
  }

  void removeFifos() throws IOException {
    for (Path fifo : fifos) {
      Files.deleteIfExists(fifo);
    }
  }

  Path spec(String uid) {
    return dir.resolve("cdi/k8s.gpu.tessera.dev-claim_" + uid + ".json");
  }

  /** The checkpoint's claims, by UID. */
  JsonNode claims() throws IOException {
    return json.readTree(
            Files.readString(dir.resolve("node/plugins/gpu.tessera.dev/checkpoint.json")))
        .get("claims");
  }

  /** Stops the plugin and kills any MPS daemon it left. */
  @Override
  public void close() throws Exception {
    stop();
    mpsDaemons().forEach(ProcessHandle::destroyForcibly);
  }
}
