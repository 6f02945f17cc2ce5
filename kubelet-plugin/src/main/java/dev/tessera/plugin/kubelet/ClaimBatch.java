package dev.tessera.plugin.kubelet;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.prepare.DeviceState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both DRA API versions do with a batch of claims: each claim on its own, so one bad claim
 * never fails the others, with its outcome counted and timed.
 */
public final class ClaimBatch {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimBatch.class);

  private final DeviceState state;
  private final MeterRegistry metrics;
  private final OutcomeTimers prepareTimers;
  private final OutcomeTimers unprepareTimers;

  public ClaimBatch(DeviceState state, MeterRegistry metrics) {
    this.state = state;
    this.metrics = metrics;
    // Both outcomes registered now: their series are there from the start, so an alert on the rate
    // of errors sees 0, not nothing, until the first one.
    this.prepareTimers = OutcomeTimers.register(metrics, "tessera.claims.prepare");
    this.unprepareTimers = OutcomeTimers.register(metrics, "tessera.claims.unprepare");
    Gauge.builder("tessera.claims.prepared", state, s -> s.checkpoint().claims().size())
        .description("Claims prepared or being prepared on this node")
        .register(metrics);
  }

  /** One call's timers, by outcome. */
  private record OutcomeTimers(Timer success, Timer error) {
    static OutcomeTimers register(MeterRegistry metrics, String name) {
      return new OutcomeTimers(timer(metrics, name, "success"), timer(metrics, name, "error"));
    }

    private static Timer timer(MeterRegistry metrics, String name, String outcome) {
      return Timer.builder(name)
          .description("Time to " + name.substring(name.lastIndexOf('.') + 1) + " one claim")
          .tag("outcome", outcome)
          .publishPercentileHistogram()
          .register(metrics);
    }

    Timer of(Outcome outcome) {
      return outcome instanceof Outcome.Failed ? error : success;
    }
  }

  /** The outcome of one claim: its devices, or the error the kubelet should show. */
  public sealed interface Outcome {
    record Prepared(List<PreparedDevice> devices) implements Outcome {}

    record Done() implements Outcome {}

    record Failed(String error) implements Outcome {}
  }

  public Map<String, Outcome> prepare(List<ClaimRef> claims) {
    var outcomes = new LinkedHashMap<String, Outcome>();
    for (ClaimRef claim : claims) {
      Timer.Sample sample = Timer.start(metrics);
      Outcome outcome;
      requested("prepare", claim);
      try {
        outcome = new Outcome.Prepared(state.prepare(claim));
      } catch (PrepareException | RuntimeException e) {
        outcome = failed("prepare", claim, e);
      }
      sample.stop(prepareTimers.of(outcome));
      outcomes.put(claim.uid(), outcome);
    }
    return outcomes;
  }

  public Map<String, Outcome> unprepare(List<ClaimRef> claims) {
    var outcomes = new LinkedHashMap<String, Outcome>();
    for (ClaimRef claim : claims) {
      Timer.Sample sample = Timer.start(metrics);
      Outcome outcome;
      requested("unprepare", claim);
      try {
        state.unprepare(claim);
        outcome = new Outcome.Done();
      } catch (PrepareException | RuntimeException e) {
        outcome = failed("unprepare", claim, e);
      }
      sample.stop(unprepareTimers.of(outcome));
      outcomes.put(claim.uid(), outcome);
    }
    return outcomes;
  }

  /**
   * Logged before the node lock is taken: a prepare that waits behind another one (or behind a slow
   * MIG change) shows as asked for and not yet done.
   */
  private static void requested(String what, ClaimRef claim) {
    LOG.atInfo()
        .addKeyValue("claim.uid", claim.uid())
        .addKeyValue("claim.namespace", claim.namespace())
        .addKeyValue("claim.name", claim.name())
        .log(what + " requested by the kubelet");
  }

  private static Outcome failed(String what, ClaimRef claim, Exception e) {
    String error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    LOG.atWarn()
        .addKeyValue("claim.uid", claim.uid())
        .addKeyValue("claim.namespace", claim.namespace())
        .addKeyValue("claim.name", claim.name())
        .setCause(e instanceof PrepareException ? null : e)
        .log(what + " failed: " + error);
    return new Outcome.Failed(error);
  }
}
