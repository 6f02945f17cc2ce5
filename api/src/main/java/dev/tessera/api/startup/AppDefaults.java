package dev.tessera.api.startup;

import io.micronaut.context.env.AbstractPropertySourceLoader;
import io.micronaut.context.env.PropertySource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Properties;

/**
 * An app's default settings, from a properties file on its class path that is not named {@code
 * application.properties}. Micronaut reads a class-path {@code application.properties} through a
 * zip file system it opens over the whole jar (~100 ms of a JIT start for the 40 MB shaded jar,
 * docs/benchmarks.md); read here through the class loader, the same settings cost next to nothing.
 * They keep the place an {@code application.properties} has: below the environment variables and
 * system properties, so {@code TESSERA_*} and {@code -Dtessera.*} still win. Only the contexts the
 * apps' {@code Main} builds (through {@link AppContext}) read them; a test that builds its own
 * context sets what it needs.
 */
public final class AppDefaults {
  private AppDefaults() {}

  /**
   * The settings in {@code resource}, as the property source Micronaut would have made of an {@code
   * application.properties}.
   *
   * @throws IllegalStateException when the app's jar does not hold {@code resource}
   */
  public static PropertySource of(String resource, ClassLoader classLoader) {
    var properties = new Properties();
    try (InputStream in = classLoader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
    var values = new LinkedHashMap<String, Object>();
    properties
        .stringPropertyNames()
        .forEach(name -> values.put(name, properties.getProperty(name)));
    return PropertySource.of(resource, values, AbstractPropertySourceLoader.DEFAULT_POSITION);
  }
}
