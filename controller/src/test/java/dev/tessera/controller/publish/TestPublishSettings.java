package dev.tessera.controller.publish;

import java.time.Duration;

/**
 * The publishing settings the tests start from, each changed where a test says: a 5 s Lease grace,
 * a 10 min resync (the tests' events name their nodes), retries from 1 s to 10 s, two workers, the
 * list and write timeouts of the controller's defaults.
 */
final class TestPublishSettings {
  private String leaseNamespace = "kube-node-lease";
  private int workers = 2;
  private Duration listTimeout = Duration.ofMinutes(5);
  private Duration callTimeout = Duration.ofMinutes(2);

  TestPublishSettings leaseNamespace(String namespace) {
    this.leaseNamespace = namespace;
    return this;
  }

  TestPublishSettings workers(int workers) {
    this.workers = workers;
    return this;
  }

  TestPublishSettings listTimeout(Duration timeout) {
    this.listTimeout = timeout;
    return this;
  }

  TestPublishSettings callTimeout(Duration timeout) {
    this.callTimeout = timeout;
    return this;
  }

  PublishSettings build() {
    return new PublishSettings(
        "gpu.tessera.dev",
        "exclusive",
        leaseNamespace,
        Duration.ofSeconds(5),
        Duration.ofMinutes(10),
        Duration.ofSeconds(1),
        Duration.ofSeconds(10),
        workers,
        listTimeout,
        callTimeout);
  }
}
