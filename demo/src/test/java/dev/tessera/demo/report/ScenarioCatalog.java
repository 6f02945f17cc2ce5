package dev.tessera.demo.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The demo's scenarios in their order: every directory under demo/scenarios with a scenario.yaml,
 * by name (the number first), each with its purpose (its row in demo/README.md's table) and the
 * YAML files it holds.
 */
public record ScenarioCatalog(List<Entry> scenarios) {
  /** A scenario directory named like {@code 01-gpu-per-pod}. */
  static final Pattern NAME = Pattern.compile("\\d{2}-[a-z0-9-]+");

  // | `01-gpu-per-pod` | what it shows | test |
  private static final Pattern ROW =
      Pattern.compile("^\\| `(" + NAME + ")` \\| (.+?) \\| [^|]+ \\|$");

  /** One scenario: its name, one line of purpose, its YAML files (scenario.yaml first) by name. */
  public record Entry(String name, String purpose, Map<String, String> yaml) {
    public Entry {
      yaml = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(yaml));
    }
  }

  public ScenarioCatalog {
    scenarios = List.copyOf(scenarios);
  }

  /** The scenarios of the repository at {@code repo}. */
  public static ScenarioCatalog read(Path repo) {
    try {
      Map<String, String> purposes = purposes(Files.readString(repo.resolve("demo/README.md")));
      var entries = new ArrayList<Entry>();
      for (String name : names(repo.resolve("demo/scenarios"))) {
        Path dir = repo.resolve("demo/scenarios").resolve(name);
        var yaml = new LinkedHashMap<String, String>();
        yaml.put("scenario.yaml", Files.readString(dir.resolve("scenario.yaml")));
        try (Stream<Path> files = Files.list(dir)) {
          for (Path f : files.sorted().toList()) {
            String file = f.getFileName().toString();
            if (file.endsWith(".yaml") && !file.equals("scenario.yaml")) {
              yaml.put(file, Files.readString(f));
            }
          }
        }
        entries.add(new Entry(name, purposes.getOrDefault(name, ""), yaml));
      }
      return new ScenarioCatalog(entries);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The scenario directories under {@code scenariosDir}, in their order. */
  public static List<String> names(Path scenariosDir) throws IOException {
    try (Stream<Path> dirs = Files.list(scenariosDir)) {
      return dirs.filter(d -> Files.isRegularFile(d.resolve("scenario.yaml")))
          .map(d -> d.getFileName().toString())
          .filter(n -> NAME.matcher(n).matches())
          .sorted()
          .toList();
    }
  }

  /** Scenario name to its "what it shows" cell, from the scenario table of demo/README.md. */
  static Map<String, String> purposes(String readme) {
    var purposes = new LinkedHashMap<String, String>();
    readme
        .lines()
        .map(ROW::matcher)
        .filter(java.util.regex.Matcher::matches)
        .forEach(m -> purposes.putIfAbsent(m.group(1), m.group(2).strip()));
    return purposes;
  }

  public List<String> names() {
    return scenarios.stream().map(Entry::name).toList();
  }

  public Optional<Entry> get(String name) {
    return scenarios.stream().filter(e -> e.name().equals(name)).findFirst();
  }
}
