package dev.tessera.plugin.metrics;

import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.prepare.ClaimSource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods and consumed memory of the prepared claims, in memory. Filled from the claim prepare
 * reads anyway ({@link ObservedClaims}), so the first sample after a prepare has them; read again
 * on the sampler's thread when older than {@code refresh} (at most once per claim per {@code
 * refresh}, so a node of many claims makes a few reads a minute): pods that reserve a claim after
 * its prepare show up, and after a restart (the checkpoint keeps only namespace, name and UID) the
 * first sample fills them. Never on the kubelet's path.
 */
public final class ClaimDetailsBook {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimDetailsBook.class);

  private final ClaimSource source;
  private final String driver;
  private final String pool;
  private final Duration refresh;
  private final Clock clock;
  private final Map<String, ClaimDetails> details = new ConcurrentHashMap<>();
  private final Map<String, Instant> readAt = new ConcurrentHashMap<>();

  public ClaimDetailsBook(
      ClaimSource source, String driver, String pool, Duration refresh, Clock clock) {
    this.source = source;
    this.driver = driver;
    this.pool = pool;
    this.refresh = refresh;
    this.clock = clock;
  }

  /** A claim as read from the API server (by prepare, or by {@link #refresh}). */
  public void seen(ResourceClaim claim) {
    ClaimDetails read = ClaimDetails.of(claim, driver, pool);
    details.put(read.uid(), read);
    readAt.put(read.uid(), clock.instant());
  }

  public Optional<ClaimDetails> get(String uid) {
    return Optional.ofNullable(details.get(uid));
  }

  /**
   * Forgets released claims (unless read within {@code refresh}: a prepare reads its claim before
   * the checkpoint has it) and reads again the completed claims whose details are missing or old. A
   * read that fails keeps what was known, and is tried again after {@code refresh}.
   */
  public void refresh(PreparedClaims claims) {
    Instant now = clock.instant();
    readAt.keySet().removeIf(uid -> !claims.claims().containsKey(uid) && old(uid, now));
    details.keySet().removeIf(uid -> !readAt.containsKey(uid));
    claims
        .claims()
        .forEach(
            (uid, entry) -> {
              if (entry.state() != ClaimState.PrepareCompleted || !old(uid, now)) {
                return;
              }
              readAt.put(uid, now);
              try {
                source
                    .get(entry.namespace(), entry.name())
                    .filter(claim -> uid.equals(claim.getMetadata().getUid()))
                    .ifPresent(this::seen);
              } catch (PrepareException | RuntimeException e) {
                LOG.atDebug()
                    .addKeyValue("claim.uid", uid)
                    .addKeyValue("claim.namespace", entry.namespace())
                    .addKeyValue("claim.name", entry.name())
                    .setCause(e)
                    .log("cannot read the claim for its metrics' labels");
              }
            });
  }

  private boolean old(String uid, Instant now) {
    Instant at = readAt.get(uid);
    return at == null || !now.isBefore(at.plus(refresh));
  }
}
