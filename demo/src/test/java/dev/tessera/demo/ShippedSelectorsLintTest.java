package dev.tessera.demo;

import static dev.tessera.demo.HelmChart.REPO;
import static dev.tessera.demo.HelmChart.parse;
import static dev.tessera.demo.HelmChart.tree;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.FieldError;
import dev.tessera.controller.admission.SelectorAdmission;
import dev.tessera.controller.admission.SelectorLint;
import dev.tessera.controller.render.PublishedNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every selector Tessera ships (the demo scenarios, the DeviceClasses of deploy/manifests) passes
 * the webhook's selector lint without a word: the lint has no false alarm on selectors that the
 * scheduler allocates with in the E2E tier.
 */
class ShippedSelectorsLintTest {
  private static final String DRIVER = "gpu.tessera.dev";

  @Test
  void noShippedSelectorIsWarnedOf() throws Exception {
    var admission = new SelectorAdmission(new SelectorLint(DRIVER, PublishedNames.of(DRIVER)));
    var files = new ArrayList<Path>();
    for (Path dir : List.of(REPO.resolve("demo/scenarios"), REPO.resolve("deploy/manifests"))) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
      }
    }
    var warnings = new ArrayList<String>();
    int linted = 0;
    for (Path file : files) {
      for (HasMetadata object : parse(Files.readString(file))) {
        if (!List.of("ResourceClaim", "ResourceClaimTemplate", "DeviceClass")
            .contains(object.getKind())) {
          continue;
        }
        linted++;
        for (FieldError warning : admission.warnings(object.getKind(), tree(object), null)) {
          warnings.add(
              REPO.relativize(file) + " " + object.getMetadata().getName() + " " + warning);
        }
      }
    }
    assertThat(linted).as("claims, templates and classes found").isGreaterThan(20);
    assertThat(warnings).isEmpty();
  }
}
