package dev.tessera.cli.why;

import dev.tessera.cli.core.ClaimRef;
import java.util.List;

/** What {@code kubectl tessera why} found for one claim. */
public sealed interface WhyReport {
  ClaimRef claim();

  /** The claim is allocated: each result as {@code request: pool/device} with what it consumed. */
  record Allocated(ClaimRef claim, List<String> results, List<String> pods) implements WhyReport {
    public Allocated {
      results = List.copyOf(results);
      pods = List.copyOf(pods);
    }
  }

  /**
   * The claim is pending: per node, each request's finding.
   *
   * @param notModeled what the claim asks that the analysis does not model (constraints, ...)
   */
  record Pending(ClaimRef claim, List<NodeFinding> nodes, List<String> notModeled)
      implements WhyReport {
    public Pending {
      nodes = List.copyOf(nodes);
      notModeled = List.copyOf(notModeled);
    }
  }

  record NodeFinding(String node, List<RequestFinding> requests) {
    public NodeFinding {
      requests = List.copyOf(requests);
    }
  }
}
