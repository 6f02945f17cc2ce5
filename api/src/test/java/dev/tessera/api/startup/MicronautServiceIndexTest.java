package dev.tessera.api.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.core.io.service.SoftServiceLoader.StaticServiceLoader;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MicronautServiceIndexTest {
  /** A provider Micronaut can make. */
  public static final class Made implements Runnable {
    public Made() {}

    @Override
    public void run() {}
  }

  /** No public no-argument constructor: Micronaut's own loader leaves it out. */
  public static final class NeedsArgument implements Runnable {
    public NeedsArgument(String argument) {}

    @Override
    public void run() {}
  }

  /** Fails while it is made: an error of the provider, not a missing optional one. */
  public static final class Broken implements Runnable {
    public Broken() {
      throw new IllegalStateException("broken provider");
    }

    @Override
    public void run() {}
  }

  @TempDir Path dir;

  @Test
  void theJarsServicesAreReadWhenTheClassPathIsThatOneJar() throws IOException {
    Path jar = jar("app.jar", List.of(Made.class.getName(), "absent.Provider"));

    var services = MicronautServiceIndex.read(jar.toString());

    assertThat(services).isPresent();
    assertThat(services.get().byService())
        .containsEntry("java.lang.Runnable", List.of(Made.class.getName(), "absent.Provider"))
        .containsEntry(
            "io.micronaut.inject.BeanDefinitionReference", List.of("x.$Bean$Definition$Reference"));
  }

  @Test
  void anyOtherClassPathIsLeftToMicronautsScan() throws IOException {
    Path jar = jar("app.jar", List.of(Made.class.getName()));

    assertThat(MicronautServiceIndex.read(jar + File.pathSeparator + dir)).isEmpty();
    assertThat(MicronautServiceIndex.read(dir.toString())).isEmpty();
    assertThat(MicronautServiceIndex.read(dir.resolve("missing.jar").toString())).isEmpty();
    assertThat(MicronautServiceIndex.read(null)).isEmpty();
  }

  @Test
  void providersAreMadeAsMicronautMakesThemAndMissingOnesAreLeftOut() throws IOException {
    var services =
        MicronautServiceIndex.read(
                jar(
                        "app.jar",
                        List.of(
                            Made.class.getName(), "absent.Provider", NeedsArgument.class.getName()))
                    .toString())
            .orElseThrow();
    StaticServiceLoader<?> runnables = loader(services, "java.lang.Runnable");

    List<?> made = runnables.load(provider -> true);

    assertThat(made).singleElement().isInstanceOf(Made.class);
    assertThat(runnables.findAll(name -> true))
        .extracting(definition -> definition.getName())
        .containsExactly(Made.class.getName());
    assertThat(runnables.findAll(name -> !name.equals(Made.class.getName()))).isEmpty();
  }

  @Test
  void aServiceTheJarDoesNotListHasNoProviderInsteadOfAScan() throws IOException {
    var services =
        MicronautServiceIndex.read(jar("app.jar", List.of(Made.class.getName())).toString())
            .orElseThrow();
    var loaders = MicronautServiceIndex.optimizations(services, getClass().getClassLoader());

    assertThat(loaders.getServiceLoaders()).containsKey("io.micronaut.context.NotInTheJar");
    assertThat(loaders.getServiceLoaders().get("io.micronaut.context.NotInTheJar").load(p -> true))
        .isEmpty();
    assertThat(loaders.getServiceLoaders().keySet())
        .containsExactlyInAnyOrder(
            "java.lang.Runnable", "io.micronaut.inject.BeanDefinitionReference");
  }

  @Test
  void aProviderIsMadeWhenLoadedAndOneThatFailsThenFailsTheLoadNamingIt() throws IOException {
    var services =
        MicronautServiceIndex.read(
                jar("app.jar", List.of(Broken.class.getName(), Made.class.getName())).toString())
            .orElseThrow();
    var definitions = loader(services, "java.lang.Runnable").findAll(name -> true).toList();

    assertThat(definitions)
        .extracting(definition -> definition.getName())
        .containsExactly(Broken.class.getName(), Made.class.getName());
    assertThat(definitions.get(1).load()).isInstanceOf(Made.class);
    assertThatThrownBy(() -> loader(services, "java.lang.Runnable").load(provider -> true))
        .hasMessageContaining(Broken.class.getName())
        .hasRootCauseMessage("broken provider");
  }

  private StaticServiceLoader<?> loader(JarServices services, String service) {
    return MicronautServiceIndex.optimizations(services, getClass().getClassLoader())
        .getServiceLoaders()
        .get(service);
  }

  private Path jar(String name, List<String> runnables) throws IOException {
    Path jar = dir.resolve(name);
    try (var out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("META-INF/services/java.lang.Runnable"));
      out.write(String.join("\n", runnables).getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
      out.putNextEntry(
          new JarEntry("META-INF/micronaut/io.micronaut.inject.BeanDefinitionReference/"));
      out.closeEntry();
      out.putNextEntry(
          new JarEntry(
              "META-INF/micronaut/io.micronaut.inject.BeanDefinitionReference/x.$Bean$Definition$Reference"));
      out.closeEntry();
    }
    return jar;
  }
}
