package dev.tessera.cli.why;

import java.util.List;

/**
 * One request (or one firstAvailable alternative) on one node: what it needs and, per device, why
 * it is or is not served.
 *
 * @param request the request's name ({@code request/sub} for an alternative)
 * @param needs how many devices it needs; -1 for allocationMode All
 */
public record RequestFinding(String request, String deviceClass, long needs, List<Reason> reasons) {
  public RequestFinding {
    reasons = List.copyOf(reasons);
  }

  public long fitting() {
    return reasons.stream().filter(r -> r instanceof Reason.Fits).count();
  }

  /** Whether this node could serve the request now, as far as modeled. */
  public boolean satisfiable() {
    if (reasons.stream().anyMatch(r -> r instanceof Reason.NoSuchClass)) {
      return false;
    }
    if (needs < 0) {
      return fitting() > 0
          && reasons.stream().allMatch(r -> r instanceof Reason.Fits || isOutOfSelection(r));
    }
    return fitting() >= needs;
  }

  private static boolean isOutOfSelection(Reason r) {
    return r instanceof Reason.NoDeviceOfClass || r instanceof Reason.SelectorFalse;
  }
}
