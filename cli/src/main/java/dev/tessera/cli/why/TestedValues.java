package dev.tessera.cli.why;

import dev.tessera.cel.CelDevice;
import dev.tessera.cel.NearestName;
import dev.tessera.cel.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a selector reads of a device ({@code device.attributes["d"].name}, {@code
 * device.capacity["d"]["name"]}) with the device's value of each, so a false selector can be shown
 * against the facts it tested; and, for a name the device lacks, the nearest name it has. A plain
 * pattern, not the CEL tree: it only picks what to show, it never decides.
 */
final class TestedValues {
  private static final Pattern READ =
      Pattern.compile(
          "device\\.(attributes|capacity)\\[\"([^\"]+)\"\\]"
              + "(?:\\.([A-Za-z_][A-Za-z0-9_]*)|\\[\"([^\"]+)\"\\])");

  private final String driver;

  TestedValues(String driver) {
    this.driver = driver;
  }

  private record Read(boolean capacity, String domain, String name) {}

  /** Each name the selector reads, as {@code name=value} ({@code name absent} when missing). */
  List<String> of(String expression, CelDevice device) {
    var values = new ArrayList<String>();
    for (Read read : reads(expression)) {
      Map<String, ?> domain = map(device, read).get(read.domain());
      Object value = domain == null ? null : domain.get(read.name());
      String label = read.domain().equals(driver) ? read.name() : read.domain() + "/" + read.name();
      values.add(value == null ? label + " absent" : label + "=" + show(value));
    }
    return values;
  }

  /** For the first name the device lacks: the nearest it has, or what it has. */
  Optional<String> hint(String expression, CelDevice device) {
    for (Read read : reads(expression)) {
      Map<String, ?> domain = map(device, read).get(read.domain());
      if (domain != null && domain.containsKey(read.name())) {
        continue;
      }
      String what = read.capacity() ? "capacity" : "attribute";
      if (domain == null) {
        return Optional.of("the device has no %s in domain %s".formatted(what, read.domain()));
      }
      return Optional.of(
          NearestName.of(read.name(), domain.keySet())
              .map(
                  n ->
                      "the device has no %s \"%s\"; did you mean \"%s\"?"
                          .formatted(what, read.name(), n))
              .orElse("the device has no %s \"%s\"".formatted(what, read.name())));
    }
    return Optional.empty();
  }

  private static Map<String, ? extends Map<String, ?>> map(CelDevice device, Read read) {
    return read.capacity() ? device.capacity() : device.attributes();
  }

  private static List<Read> reads(String expression) {
    var reads = new LinkedHashSet<Read>();
    Matcher m = READ.matcher(expression);
    while (m.find()) {
      reads.add(
          new Read(
              m.group(1).equals("capacity"),
              m.group(2),
              m.group(3) != null ? m.group(3) : m.group(4)));
    }
    return List.copyOf(reads);
  }

  private static String show(Object value) {
    return switch (value) {
      case String s -> "\"" + s + "\"";
      case Quantity q -> q.human();
      default -> value.toString();
    };
  }
}
