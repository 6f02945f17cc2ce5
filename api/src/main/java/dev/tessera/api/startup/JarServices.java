package dev.tessera.api.startup;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The services one jar provides, by service name: the lines of its {@code META-INF/services/<name>}
 * files and the entries under {@code META-INF/micronaut/<name>/} (one empty entry per class, how
 * Micronaut lists bean definitions), merged by service as Micronaut's own scan merges them; the
 * order of the entries is the jar's, which Micronaut's scan does not promise either.
 *
 * @param byService each service's provider classes, in the jar's order, without repeats
 */
public record JarServices(Map<String, List<String>> byService) {
  static final String SERVICES = "META-INF/services/";
  static final String MICRONAUT = "META-INF/micronaut/";

  public JarServices {
    var copy = new LinkedHashMap<String, List<String>>();
    byService.forEach((service, classes) -> copy.put(service, List.copyOf(classes)));
    byService = Collections.unmodifiableMap(copy);
  }

  /**
   * Reads a jar's entry names; {@code serviceFile} gives the text of a {@code META-INF/services}
   * entry.
   */
  public static JarServices of(Iterable<String> entryNames, Function<String, String> serviceFile) {
    var found = new LinkedHashMap<String, Set<String>>();
    for (String entry : entryNames) {
      if (entry.endsWith("/")) {
        continue;
      }
      if (entry.startsWith(MICRONAUT)) {
        String rest = entry.substring(MICRONAUT.length());
        int slash = rest.indexOf('/');
        if (slash > 0 && slash < rest.length() - 1 && rest.indexOf('/', slash + 1) < 0) {
          add(found, rest.substring(0, slash), rest.substring(slash + 1));
        }
      } else if (entry.startsWith(SERVICES) && entry.indexOf('/', SERVICES.length()) < 0) {
        String service = entry.substring(SERVICES.length());
        for (String line : serviceFile.apply(entry).lines().toList()) {
          String provider = withoutComment(line);
          if (!provider.isEmpty()) {
            add(found, service, provider);
          }
        }
      }
    }
    var byService = new LinkedHashMap<String, List<String>>();
    found.forEach((service, classes) -> byService.put(service, List.copyOf(classes)));
    return new JarServices(byService);
  }

  private static void add(Map<String, Set<String>> found, String service, String provider) {
    found.computeIfAbsent(service, s -> new LinkedHashSet<>()).add(provider);
  }

  private static String withoutComment(String line) {
    int hash = line.indexOf('#');
    return (hash < 0 ? line : line.substring(0, hash)).strip();
  }
}
