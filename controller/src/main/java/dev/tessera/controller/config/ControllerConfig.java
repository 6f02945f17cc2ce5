package dev.tessera.controller.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * The controller's settings ({@code tessera.controller.*}; env vars such as {@code
 * TESSERA_CONTROLLER_DEFAULT_OFFERING}).
 *
 * @param driverName the DRA driver name the node plugins run under
 * @param defaultOffering the offering of nodes without the {@code gpu.tessera.dev/offering} label
 * @param leaseNamespace where the node plugins renew their Leases
 * @param leaseGrace how long past a Lease's expiry a node keeps its slices (a plugin restart)
 * @param resync how often every node is reconciled even without events (Lease expiry is silent)
 * @param kubeconfig a kubeconfig file; empty for in-cluster config or $KUBECONFIG
 * @param electionNamespace where the replicas' leader-election Lease ({@code tessera-controller})
 *     is
 * @param electionLeaseDuration how long a leader holds the Lease without renewing it
 * @param webhookCertFile the admission webhook's PEM certificate (chain); the webhook is off
 *     without it
 * @param webhookKeyFile the webhook's PEM private key (PKCS#8)
 * @param webhookPort the webhook's HTTPS port ({@code /validate}, {@code /healthz})
 * @param metricsPort the plain-HTTP port of {@code /metrics} and {@code /healthz}; -1 for none
 * @param retryInitial how long a node whose reconcile failed waits before the first retry; each
 *     further failure in a row doubles it
 * @param retryMax the longest wait between retries of a failing node
 * @param unhealthyTaintEffect the taint effect on a device its plugin reports unhealthy (a fatal
 *     XID): {@code NoSchedule} keeps new claims off it; {@code NoExecute} also evicts the pods
 *     using it
 * @param workers how many nodes the leader reconciles at once; a node's slices are written by one
 *     worker at a time. Publishing a fleet from scratch is bound by the API server's write rate,
 *     which one worker writing node after node does not reach
 * @param listTimeout the longest one of the caches' first lists may take once this replica leads: a
 *     list past it (an answer that stalls) makes the leader exit, releasing the lead to another
 *     replica or to its own restart, where it would otherwise hold the lead and publish nothing.
 *     Far above a slow start (a 5,000-node fleet's start took 82 s with a 256 MiB heap)
 * @param callTimeout the longest a node's slice reads or slice writes, or a GpuNode's status write,
 *     may take before the controller gives them up: the node is retried after its backoff. An
 *     answer that stalls after its headers would otherwise hold the calling thread for good
 *     (fabric8's JDK client has no timeout after them). Far above what they take (the API server
 *     ends a request itself after 60 s)
 * @param podName the replica's pod (from the downward API, {@code POD_NAME}), its identity in
 *     leader election; defaults to {@code tessera-controller-<pid>} for a controller outside a pod
 */
@ConfigurationProperties("tessera.controller")
public record ControllerConfig(
    @Bindable(defaultValue = "gpu.tessera.dev") String driverName,
    @Bindable(defaultValue = "exclusive") String defaultOffering,
    @Bindable(defaultValue = "kube-node-lease") String leaseNamespace,
    @Bindable(defaultValue = "20s") Duration leaseGrace,
    @Bindable(defaultValue = "15s") Duration resync,
    @Nullable String kubeconfig,
    @Bindable(defaultValue = "kube-system") String electionNamespace,
    @Bindable(defaultValue = "15s") Duration electionLeaseDuration,
    @Nullable String webhookCertFile,
    @Nullable String webhookKeyFile,
    @Bindable(defaultValue = "8443") int webhookPort,
    @Bindable(defaultValue = "8080") int metricsPort,
    @Bindable(defaultValue = "200ms") Duration retryInitial,
    @Bindable(defaultValue = "5m") Duration retryMax,
    @Bindable(defaultValue = "NoSchedule") String unhealthyTaintEffect,
    @Bindable(defaultValue = "8") int workers,
    @Bindable(defaultValue = "5m") Duration listTimeout,
    @Bindable(defaultValue = "2m") Duration callTimeout,
    @Nullable String podName) {

  /** This replica's name in leader election: the pod, else this process. */
  public String electionIdentity() {
    return podName == null || podName.isBlank()
        ? "tessera-controller-" + ProcessHandle.current().pid()
        : podName;
  }
}
