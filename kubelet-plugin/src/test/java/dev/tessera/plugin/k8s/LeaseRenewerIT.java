package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The plugin's Lease renewals against fabric8's CRUD mock API server (which refuses an update whose
 * resourceVersion is stale): what each renewal asks of the API server, and that a Lease changed or
 * deleted by someone else is still renewed in the same period.
 */
class LeaseRenewerIT {
  private static final String NAMESPACE = "kube-node-lease";
  private static final String LEASES =
      "/apis/coordination.k8s.io/v1/namespaces/" + NAMESPACE + "/leases";
  private static final String OURS = LEASES + "/tessera-node-a";

  private MockApiServer api;
  private MutableClock clock;
  private LeaseRenewer renewer;

  @BeforeEach
  void start() {
    api = new MockApiServer();
    clock = new MutableClock(Instant.parse("2026-12-04T06:00:00Z"));
    renewer =
        new LeaseRenewer(
            api::client, NAMESPACE, "node-a", "plugin-a", Duration.ofSeconds(40), clock);
  }

  @AfterEach
  void stop() {
    renewer.close();
    api.close();
  }

  @Test
  void aRenewalAfterTheFirstIsOneUpdate() throws Exception {
    renewer.renew();
    assertThat(api.drainRequests()).containsExactly("GET " + OURS, "POST " + LEASES);

    for (int i = 1; i <= 3; i++) {
      clock.advance(Duration.ofSeconds(10));
      api.drainRequests(); // the test's own reads
      renewer.renew();
      assertThat(api.drainRequests()).as("renewal %d", i).containsExactly("PUT " + OURS);
      assertThat(lease().getSpec().getRenewTime()).isEqualTo(clock.now());
    }
    assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("plugin-a");
    assertThat(lease().getSpec().getLeaseDurationSeconds()).isEqualTo(40);
  }

  @Test
  void aLeaseChangedBySomeoneElseIsReadAgainAndRenewedInTheSamePeriod() throws Exception {
    renewer.renew();
    // Someone else writes the Lease (an admin, an old plugin still running): the renewer's copy
    // is stale, and the API server refuses it.
    var changed = lease();
    changed.getSpec().setHolderIdentity("someone-else");
    api.client().leases().inNamespace(NAMESPACE).resource(changed).update();
    api.drainRequests();

    clock.advance(Duration.ofSeconds(10));
    renewer.renew();

    assertThat(api.drainRequests()).containsExactly("PUT " + OURS, "GET " + OURS, "PUT " + OURS);
    assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("plugin-a");
    assertThat(lease().getSpec().getRenewTime()).isEqualTo(clock.now());
    clock.advance(Duration.ofSeconds(10));
    api.drainRequests(); // the test's own reads
    renewer.renew();
    assertThat(api.drainRequests()).containsExactly("PUT " + OURS);
  }

  @Test
  void aDeletedLeaseIsMadeAgainInTheSamePeriod() throws Exception {
    renewer.renew();
    api.client().leases().inNamespace(NAMESPACE).withName("tessera-node-a").delete();
    api.drainRequests();

    clock.advance(Duration.ofSeconds(10));
    renewer.renew();

    assertThat(api.drainRequests()).containsExactly("PUT " + OURS, "GET " + OURS, "POST " + LEASES);
    assertThat(lease().getSpec().getRenewTime()).isEqualTo(clock.now());
  }

  private Lease lease() {
    return api.client().leases().inNamespace(NAMESPACE).withName("tessera-node-a").get();
  }
}
