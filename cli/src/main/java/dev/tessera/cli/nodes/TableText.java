package dev.tessera.cli.nodes;

import java.util.ArrayList;
import java.util.List;

/** Rows as kubectl prints a table: upper-case headers, columns padded to the widest cell. */
public final class TableText {
  private static final List<String> HEADERS =
      List.of("NODE", "DEVICE", "TYPE", "PROFILE", "MEMORY", "HEALTH", "TAINTS", "CLAIMS", "PODS");

  private TableText() {}

  public static String render(List<DeviceRow> rows) {
    if (rows.isEmpty()) {
      return "No devices of the driver are published.\n";
    }
    var cells = new ArrayList<List<String>>();
    cells.add(HEADERS);
    for (DeviceRow r : rows) {
      cells.add(
          List.of(
              r.node(),
              r.device(),
              r.type(),
              r.profile(),
              r.memory(),
              r.health(),
              list(r.taints()),
              list(r.claims()),
              list(r.pods())));
    }
    int[] widths = new int[HEADERS.size()];
    for (List<String> line : cells) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], line.get(i).length());
      }
    }
    var out = new StringBuilder();
    for (List<String> line : cells) {
      var text = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        text.append(i == widths.length - 1 ? line.get(i) : pad(line.get(i), widths[i] + 3));
      }
      out.append(text.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static String list(List<String> values) {
    return values.isEmpty() ? "<none>" : String.join(",", values);
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(width - s.length());
  }
}
