package dev.tessera.api.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.AbstractPropertySourceLoader;
import io.micronaut.context.env.EnvironmentPropertySource;
import io.micronaut.context.env.PropertySource;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppDefaultsTest {
  @TempDir Path dir;

  @Test
  void theFilesSettingsComeBelowTheEnvironmentWithTheirPlaceholdersKept() throws IOException {
    Files.writeString(
        dir.resolve("defaults.properties"),
        "# a comment\napp.name=tessera\napp.node=${node.name:}\napp.left=kept\n");

    try (var jar = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      PropertySource defaults = AppDefaults.of("defaults.properties", jar);

      assertThat(defaults.getOrder())
          .isEqualTo(AbstractPropertySourceLoader.DEFAULT_POSITION)
          .isLessThan(EnvironmentPropertySource.POSITION);
      assertThat(defaults.get("app.node")).isEqualTo("${node.name:}");
      try (var context =
          ApplicationContext.builder()
              .environmentPropertySource(false)
              .propertySources(
                  defaults,
                  PropertySource.of(
                      "env",
                      Map.of("app.name", "from-env", "node.name", "node-a"),
                      EnvironmentPropertySource.POSITION))
              .start()) {
        assertThat(context.getProperty("app.name", String.class)).contains("from-env");
        assertThat(context.getProperty("app.left", String.class)).contains("kept");
        assertThat(context.getProperty("app.node", String.class)).contains("node-a");
      }
    }
  }

  @Test
  void aMissingFileIsNamed() throws IOException {
    try (var jar = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      assertThatThrownBy(() -> AppDefaults.of("missing.properties", jar))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("missing.properties");
    }
  }
}
