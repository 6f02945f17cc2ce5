package dev.tessera.cli;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The plugin's arrows point one way: what decides ({@code core}, {@code why}, {@code nodes}) reads
 * Kubernetes model objects as values and never the client; only {@code kube} talks to the cluster.
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tessera.cli");

  @Test
  void packagesFormNoCycle() {
    slices().matching("dev.tessera.cli.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void whatDecidesUsesNoClient() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.tessera.cli.core..", "dev.tessera.cli.why..", "dev.tessera.cli.nodes..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.fabric8..")
                .and(not(resideInAPackage("io.fabric8.kubernetes.api.model.."))))
        .orShould()
        .dependOnClassesThat()
        .resideInAPackage("dev.tessera.cli.kube..")
        .check(CLASSES);
  }
}
