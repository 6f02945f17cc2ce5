package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.plugin.Fixtures;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim status writes on fabric8's CRUD mock API server: which requests each costs, and that a
 * write never loses what another writer put in the status meanwhile.
 */
class ApiServerClaimsIT {
  private static final String DRIVER = "gpu.tessera.dev";
  private static final String CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";

  private final List<PreparedDevice> gpu0 =
      List.of(
          new PreparedDevice(
              List.of("gpu"),
              Fixtures.NODE,
              "gpu-0",
              List.of("k8s.gpu.tessera.dev/claim=uid-1"),
              "GPU-0",
              SharingStrategy.EXCLUSIVE,
              null));
  private MockApiServer api;
  private ClaimRef ref;

  @BeforeEach
  void startApiServer() {
    api = new MockApiServer();
    ResourceClaim created =
        api.client().resource(Fixtures.claim("uid-1", "c1", List.of(), List.of())).create();
    // The mock gives the claim a UID of its own, as an API server does.
    ref = new ClaimRef("default", "c1", created.getMetadata().getUid());
  }

  @AfterEach
  void stopApiServer() {
    api.close();
  }

  private ApiServerClaims claims(Duration delay) {
    return new ApiServerClaims(api::client, DRIVER, Clock.systemUTC(), delay);
  }

  private ResourceClaim onServer() {
    return api.client()
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("default")
        .withName("c1")
        .get();
  }

  private List<AllocatedDeviceStatus> devicesOnServer() {
    return onServer().getStatus().getDevices();
  }

  @Test
  void aStatusWriteAfterAPrepareStartsFromTheClaimThePrepareRead() throws Exception {
    api.drainRequests();
    try (var claims = claims(Duration.ofMillis(10))) {
      assertThat(claims.get("default", "c1")).isPresent();
      claims.reportPrepared(ref, gpu0);
    } // close writes what is pending
    assertThat(api.drainRequests())
        .containsExactly("GET " + CLAIMS + "/c1", "PUT " + CLAIMS + "/c1/status");
    assertThat(devicesOnServer())
        .singleElement()
        .satisfies(d -> assertThat(d.getDevice()).isEqualTo("gpu-0"))
        .satisfies(d -> assertThat(d.getDriver()).isEqualTo(DRIVER));
  }

  @Test
  void aClaimUnpreparedWithinTheDelayOfItsPrepareCostsNoRequestAfterItsRead() throws Exception {
    api.drainRequests();
    try (var claims = claims(Duration.ofSeconds(2))) {
      assertThat(claims.get("default", "c1")).isPresent();
      claims.reportPrepared(ref, gpu0);
      claims.clearPrepared(ref);
    }
    assertThat(api.drainRequests()).containsExactly("GET " + CLAIMS + "/c1");
    assertThat(devicesOnServer()).isNullOrEmpty();
  }

  @Test
  void withoutAFreshReadTheWriteReadsTheClaimFirst() throws Exception {
    api.drainRequests();
    try (var claims = claims(Duration.ofMillis(10))) {
      claims.reportPrepared(ref, gpu0);
    }
    assertThat(api.drainRequests())
        .containsExactly("GET " + CLAIMS + "/c1", "PUT " + CLAIMS + "/c1/status");
    assertThat(devicesOnServer()).extracting(AllocatedDeviceStatus::getDevice).contains("gpu-0");
  }

  @Test
  void aClaimChangedSinceThePrepareReadIsReadAgainAndTheOtherWritersEntryKept() throws Exception {
    try (var claims = claims(Duration.ofMillis(10))) {
      assertThat(claims.get("default", "c1")).isPresent();
      // Another driver writes its entry after our read: our snapshot is now stale.
      ResourceClaim now = onServer();
      now.getStatus()
          .setDevices(
              List.of(
                  new AllocatedDeviceStatusBuilder()
                      .withDriver("other.example.com")
                      .withPool("p")
                      .withDevice("nic-0")
                      .build()));
      api.client().resource(now).updateStatus();
      api.drainRequests();
      claims.reportPrepared(ref, gpu0);
    }
    assertThat(api.drainRequests())
        .containsExactly(
            "PUT " + CLAIMS + "/c1/status",
            "GET " + CLAIMS + "/c1",
            "PUT " + CLAIMS + "/c1/status");
    assertThat(devicesOnServer())
        .extracting(AllocatedDeviceStatus::getDriver, AllocatedDeviceStatus::getDevice)
        .containsExactlyInAnyOrder(tuple("other.example.com", "nic-0"), tuple(DRIVER, "gpu-0"));
  }
}
