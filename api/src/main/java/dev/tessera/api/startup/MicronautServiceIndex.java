package dev.tessera.api.startup;

import io.micronaut.core.io.service.SoftServiceLoader;
import io.micronaut.core.optim.StaticOptimizations;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * Hands Micronaut the services of the one jar an app runs from, so its context does not scan for
 * them. Micronaut lists {@code META-INF/micronaut/} by opening the jar as a zip file system, which
 * parses the 40 MB shaded jar's 21,606 entries again: 95-97 ms of a fresh JVM's start (JIT),
 * against 17-18 ms to read the same entries through {@code JarFile}, which shares the central
 * directory the class loader has already parsed (docs/benchmarks.md, decision 41).
 *
 * <p>Only for an app run from one jar ({@code java -jar}, the image): there the jar is every
 * service there is. On any other class path (tests, an IDE) Micronaut scans as before. Micronaut
 * reads the index once, when its service loader is first used, so {@link #install} comes before
 * anything asks Micronaut for a service ({@link AppContext} does it first); the index is
 * Micronaut's own static hook, the one its AOT build fills.
 */
public final class MicronautServiceIndex {
  private MicronautServiceIndex() {}

  /**
   * Indexes the jar named by {@code classPath} and installs it, when the class path is one jar.
   *
   * @return the installed index, or empty when the class path is not one jar
   */
  public static Optional<JarServices> install(String classPath, ClassLoader classLoader) {
    Optional<JarServices> services = read(classPath);
    services.ifPresent(found -> StaticOptimizations.set(optimizations(found, classLoader)));
    return services;
  }

  /** The services of the jar named by {@code classPath}, when the class path is one jar. */
  public static Optional<JarServices> read(String classPath) {
    if (classPath == null
        || classPath.contains(File.pathSeparator)
        || !classPath.endsWith(".jar")) {
      return Optional.empty();
    }
    File file = new File(classPath);
    if (!file.isFile()) {
      return Optional.empty();
    }
    try (var jar = new JarFile(file, false)) {
      var names = jar.stream().map(ZipEntry::getName).toList();
      return Optional.of(JarServices.of(names, entry -> text(jar, entry)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the services of " + classPath, e);
    }
  }

  static SoftServiceLoader.Optimizations optimizations(
      JarServices services, ClassLoader classLoader) {
    return new SoftServiceLoader.Optimizations(new EveryServiceOfTheJar(services, classLoader));
  }

  private static String text(JarFile jar, String entry) {
    try (InputStream in = jar.getInputStream(jar.getEntry(entry))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + entry, e);
    }
  }
}
