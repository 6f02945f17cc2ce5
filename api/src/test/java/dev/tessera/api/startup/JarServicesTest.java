package dev.tessera.api.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JarServicesTest {
  private static final Map<String, String> FILES =
      Map.of(
          "META-INF/services/a.Service",
          "# a comment\n\na.First\n  a.Second  # why\na.First\n",
          "META-INF/services/b.Service",
          "b.Only");

  @Test
  void servicesFilesAndMicronautEntriesAreMergedByServiceInTheJarsOrder() {
    var services =
        JarServices.of(
            List.of(
                "META-INF/",
                "META-INF/services/",
                "META-INF/services/a.Service",
                "META-INF/micronaut/",
                "META-INF/micronaut/a.Service/",
                "META-INF/micronaut/a.Service/a.Third",
                "META-INF/micronaut/a.Service/a.Second",
                "META-INF/micronaut/io.micronaut.inject.BeanDefinitionReference/x.$Bean$Definition$Reference",
                "META-INF/services/b.Service",
                "x/Bean.class"),
            FILES::get);

    assertThat(services.byService())
        .containsExactly(
            Map.entry("a.Service", List.of("a.First", "a.Second", "a.Third")),
            Map.entry(
                "io.micronaut.inject.BeanDefinitionReference",
                List.of("x.$Bean$Definition$Reference")),
            Map.entry("b.Service", List.of("b.Only")));
  }

  @Test
  void entriesNestedDeeperOrOutsideTheTwoFoldersAreNotServices() {
    var services =
        JarServices.of(
            List.of(
                "META-INF/services/nested/c.Service",
                "META-INF/micronaut/a.Service/deeper/a.Class",
                "META-INF/micronaut/loose-file",
                "META-INF/MANIFEST.MF"),
            name -> {
              throw new AssertionError("read " + name);
            });

    assertThat(services.byService()).isEmpty();
  }
}
