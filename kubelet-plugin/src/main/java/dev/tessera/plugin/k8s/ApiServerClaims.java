package dev.tessera.plugin.k8s;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.prepare.ClaimSource;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads claims and writes our part of their status through fabric8; status writes happen in the
 * background ({@link StatusReporter}) so the kubelet never waits for them, and start from the claim
 * as prepare has just read it ({@link ClaimSnapshots}) rather than reading it again.
 */
public final class ApiServerClaims implements ClaimSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiServerClaims.class);
  private static final int ATTEMPTS = 3;

  /**
   * How long a claim read or written here is a status write's starting point: well beyond the
   * status write's delay, well short of a pod's life (an unprepare reads the claim again).
   */
  private static final Duration SNAPSHOT_FRESH_FOR = Duration.ofSeconds(5);

  private final Supplier<KubernetesClient> client;
  private final String driverName;
  private final Clock clock;
  private final StatusReporter reporter;
  private final ClaimSnapshots snapshots;

  /**
   * @param client gives the client (built at start-up, before the kubelet sockets are served)
   * @param statusDelay how long a status write waits for a newer one of the same claim
   */
  public ApiServerClaims(
      Supplier<KubernetesClient> client, String driverName, Clock clock, Duration statusDelay) {
    this.client = client;
    this.driverName = driverName;
    this.clock = clock;
    this.reporter = new StatusReporter(this::writePrepared, this::writeCleared, statusDelay);
    this.snapshots = new ClaimSnapshots(SNAPSHOT_FRESH_FOR, clock);
  }

  @Override
  public Optional<ResourceClaim> get(String namespace, String name) throws PrepareException {
    try {
      ResourceClaim claim =
          client
              .get()
              .dynamicResourceAllocation()
              .v1()
              .resourceClaims()
              .inNamespace(namespace)
              .withName(name)
              .get();
      if (claim != null) {
        snapshots.remember(claim);
      }
      return Optional.ofNullable(claim);
    } catch (KubernetesClientException e) {
      throw new PrepareException(
          "cannot read claim "
              + namespace
              + "/"
              + name
              + " from the API server ("
              + rootCause(e)
              + "); nothing was prepared, the kubelet retries",
          e);
    }
  }

  /**
   * What went wrong underneath fabric8's "Operation failed": a connection that could not be made or
   * a timeout (the JDK's HTTP client throws both without a message), else the deepest message.
   */
  private static String rootCause(Throwable e) {
    String said = e.getMessage();
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException) {
        return "cannot connect" + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
      }
      if (cause instanceof HttpTimeoutException || cause instanceof SocketTimeoutException) {
        return "timed out";
      }
      if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
        said = cause.getMessage();
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return said == null ? e.getClass().getSimpleName() : said;
  }

  @Override
  public void reportPrepared(ClaimRef ref, List<PreparedDevice> devices) {
    reporter.prepared(ref, devices);
  }

  @Override
  public void clearPrepared(ClaimRef ref) {
    reporter.cleared(ref);
  }

  @Override
  public void close() throws InterruptedException {
    reporter.close();
  }

  private void writePrepared(ClaimRef ref, List<PreparedDevice> devices) {
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    updateOurStatus(
        ref,
        claim -> {
          var ours = new ArrayList<AllocatedDeviceStatus>();
          for (PreparedDevice device : devices) {
            Condition ready =
                new ConditionBuilder()
                    .withType("Ready")
                    .withStatus("True")
                    .withReason("Prepared")
                    .withMessage(
                        device.adminAccess()
                            ? "prepared with admin access: handed over as it is, beside the claims"
                                + " that use it"
                            : "prepared with sharing " + device.sharing())
                    .withLastTransitionTime(now)
                    .withObservedGeneration(claim.getMetadata().getGeneration())
                    .build();
            ours.add(
                new AllocatedDeviceStatusBuilder()
                    .withDriver(driverName)
                    .withPool(device.pool())
                    .withDevice(device.device())
                    .withShareID(device.shareId())
                    .withConditions(ready)
                    .withData(Map.of("uuid", device.uuid()))
                    .build());
          }
          return ours;
        });
  }

  private void writeCleared(ClaimRef ref) {
    updateOurStatus(ref, claim -> List.of());
  }

  /**
   * Replaces our driver's entries in {@code status.devices}, keeping other drivers' entries;
   * retried on a write conflict. Starts from the claim's fresh snapshot when there is one, so a
   * write after a prepare costs one request, and a claim unprepared within the status delay of its
   * prepare, whose status never showed our devices, costs none. The status is informative, so
   * failing to write it is logged, not fatal.
   */
  private void updateOurStatus(
      ClaimRef ref, Function<ResourceClaim, List<AllocatedDeviceStatus>> ours) {
    var claims =
        client.get().dynamicResourceAllocation().v1().resourceClaims().inNamespace(ref.namespace());
    Optional<ResourceClaim> snapshot = snapshots.fresh(ref.uid());
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      boolean fromSnapshot = snapshot.isPresent();
      try {
        ResourceClaim claim = fromSnapshot ? snapshot.get() : claims.withName(ref.name()).get();
        snapshot = Optional.empty();
        if (claim == null
            || !ref.uid().equals(claim.getMetadata().getUid())
            || claim.getStatus() == null) {
          return;
        }
        List<AllocatedDeviceStatus> current =
            claim.getStatus().getDevices() == null ? List.of() : claim.getStatus().getDevices();
        var next = new ArrayList<AllocatedDeviceStatus>();
        current.stream().filter(d -> !driverName.equals(d.getDriver())).forEach(next::add);
        next.addAll(ours.apply(claim));
        if (next.equals(current)) {
          return;
        }
        snapshots.remember(claims.resource(withDevices(claim, next)).updateStatus());
        return;
      } catch (KubernetesClientException e) {
        snapshots.forget(ref.uid());
        if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
          return;
        }
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT && fromSnapshot) {
          attempt--; // the snapshot had gone stale: read the claim, as without one
          continue;
        }
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == ATTEMPTS) {
          LOG.atWarn()
              .addKeyValue("claim.uid", ref.uid())
              .addKeyValue("claim.namespace", ref.namespace())
              .addKeyValue("claim.name", ref.name())
              .setCause(e)
              .log("cannot write the claim's device status");
          return;
        }
      }
    }
  }

  /**
   * A copy of {@code claim} whose status lists {@code devices}; the claim itself is left as it is,
   * as a snapshot is shared with whoever read it.
   */
  private static ResourceClaim withDevices(
      ResourceClaim claim, List<AllocatedDeviceStatus> devices) {
    ResourceClaimStatus read = claim.getStatus();
    var status = new ResourceClaimStatus();
    status.setAllocation(read.getAllocation());
    status.setReservedFor(read.getReservedFor());
    status.setDevices(devices);
    read.getAdditionalProperties().forEach(status::setAdditionalProperty);
    var copy = new ResourceClaim();
    copy.setApiVersion(claim.getApiVersion());
    copy.setKind(claim.getKind());
    copy.setMetadata(claim.getMetadata());
    copy.setSpec(claim.getSpec());
    copy.setStatus(status);
    claim.getAdditionalProperties().forEach(copy::setAdditionalProperty);
    return copy;
  }
}
