package dev.tessera.cli.why;

import dev.tessera.cli.core.ClaimRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@link WhyReport} as {@code kubectl tessera why} prints it: per node and request, one line per
 * reason with the devices it holds for (the same words for many devices are printed once, and so
 * are nodes whose findings read the same).
 */
public final class WhyText {
  /** Device names shown per line before "and N more". */
  static final int NAMES_SHOWN = 6;

  private WhyText() {}

  public static String render(WhyReport report) {
    var out = new StringBuilder();
    switch (report) {
      case WhyReport.Allocated a -> {
        out.append("claim ").append(a.claim()).append(" is allocated:\n");
        a.results().forEach(r -> out.append("  ").append(r).append('\n'));
        if (!a.pods().isEmpty()) {
          out.append("  reserved for pods: ").append(String.join(", ", a.pods())).append('\n');
        }
      }
      case WhyReport.Pending p -> pending(p, out);
    }
    return out.toString();
  }

  private static void pending(WhyReport.Pending p, StringBuilder out) {
    out.append("claim ").append(p.claim()).append(" is not allocated.\n");
    if (p.nodes().isEmpty()) {
      out.append("no node publishes devices of this driver.\n");
    }
    // Nodes alike (a fleet of one shape) read the same: each block of words once, with its nodes.
    var blocks = new LinkedHashMap<String, List<String>>();
    int servable = 0;
    for (WhyReport.NodeFinding node : p.nodes()) {
      boolean all = node.requests().stream().allMatch(RequestFinding::satisfiable);
      servable += all ? 1 : 0;
      var block = new StringBuilder(all ? ": every request fits now\n" : ":\n");
      for (RequestFinding r : node.requests()) {
        block
            .append("  request ")
            .append(r.request())
            .append(" (class ")
            .append(r.deviceClass())
            .append(", ")
            .append(r.needs() < 0 ? "all matching devices" : r.needs() + " device(s)")
            .append("): ")
            .append(r.fitting())
            .append(" fit\n");
        lines(r.reasons())
            .forEach(
                (line, devices) ->
                    block.append("    ").append(line).append(names(devices)).append('\n'));
      }
      blocks.computeIfAbsent(block.toString(), b -> new ArrayList<>()).add(node.node());
    }
    blocks.forEach(
        (block, nodes) ->
            out.append(nodes.size() == 1 ? "node " : "nodes ")
                .append(nodeNames(nodes))
                .append(block));
    for (String unmodeled : p.notModeled()) {
      out.append("cannot decide: ").append(unmodeled).append('\n');
    }
    if (servable > 0) {
      out.append(servable)
          .append(" node(s) could serve every request now: the scheduler may not have tried yet,")
          .append(
              " or the pod cannot go there for a reason outside DRA (node selector, resources).\n");
    } else if (!p.nodes().isEmpty()) {
      out.append("no node can serve every request now.\n");
    }
  }

  /** Each reason's words, in first-seen order, with the devices they hold for. */
  private static Map<String, List<String>> lines(List<Reason> reasons) {
    var lines = new LinkedHashMap<String, List<String>>();
    for (Reason reason : reasons) {
      lines.computeIfAbsent(words(reason), w -> new ArrayList<>()).add(reason.device());
    }
    return lines;
  }

  static String words(Reason reason) {
    return switch (reason) {
      case Reason.NoSuchClass n -> "no DeviceClass " + n.deviceClass() + " exists";
      case Reason.NoDeviceOfClass n ->
          "no device of class %s (its selectors are false on all %d devices of the node)"
              .formatted(n.deviceClass(), n.devices());
      case Reason.SelectorFalse s ->
          "selector #%d is false (%s): %s"
              .formatted(
                  s.index(),
                  s.tested().isEmpty()
                      ? "reads nothing of the device"
                      : String.join(", ", s.tested()),
                  s.expression());
      case Reason.Taken t -> "taken by " + claims(t.by());
      case Reason.Tainted t -> "tainted " + String.join(", ", t.taints());
      case Reason.CountersExhausted c ->
          "counter %s of %s exhausted: needs %s, %s left (held by %s)"
              .formatted(
                  c.counter(), c.counterSet(), c.needs().human(), c.left().human(), claims(c.by()));
      case Reason.CapacityShort c ->
          "capacity %s: asks %s, %s left%s"
              .formatted(
                  c.capacity(),
                  c.asks().human(),
                  c.left().human(),
                  c.by().isEmpty() ? "" : " (consumed by " + claims(c.by()) + ")");
      case Reason.CannotDecide c -> "cannot decide: " + c.why();
      case Reason.Fits f -> "fits" + (f.note().isEmpty() ? "" : " (" + f.note() + ")");
    };
  }

  private static String claims(List<ClaimRef> claims) {
    return claims.isEmpty()
        ? "nothing"
        : claims.stream().distinct().map(ClaimRef::toString).collect(Collectors.joining(", "));
  }

  private static String nodeNames(List<String> nodes) {
    if (nodes.size() <= NAMES_SHOWN) {
      return String.join(", ", nodes);
    }
    return String.join(", ", nodes.subList(0, NAMES_SHOWN))
        + " and "
        + (nodes.size() - NAMES_SHOWN)
        + " more ("
        + nodes.size()
        + " nodes)";
  }

  private static String names(List<String> devices) {
    List<String> named = devices.stream().filter(d -> !d.isEmpty()).toList();
    if (named.isEmpty()) {
      return "";
    }
    String shown = String.join(", ", named.subList(0, Math.min(NAMES_SHOWN, named.size())));
    int more = named.size() - NAMES_SHOWN;
    return " on " + shown + (more > 0 ? " and " + more + " more" : "");
  }
}
