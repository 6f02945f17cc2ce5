package dev.tessera.plugin;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The node plugin's arrows all point one way: no package cycle, no arrow to the controller, and the
 * packages that decide (the claim's values, the planners, config decoding, the CDI edits, the
 * checkpoint format, the GpuNode's holders) name no gRPC, JNA, Micronaut or Kubernetes client type.
 * Kubernetes model objects ({@code io.fabric8.kubernetes.api.model}) are values and may be read
 * there.
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tessera");

  /** Where the plugin decides what to do; the adapters around them do the I/O. */
  static final String[] PURE = {
    "dev.tessera.plugin.claim..",
    "dev.tessera.plugin.checkpoint..",
    "dev.tessera.plugin.cdi..",
    "dev.tessera.plugin.prepare..",
    "dev.tessera.plugin.mig..",
    "dev.tessera.plugin.sharing..",
    "dev.tessera.plugin.metrics..",
    "dev.tessera.plugin.status..",
  };

  @Test
  void modulesFormNoCycle() {
    slices().matching("dev.tessera.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void packagesFormNoCycle() {
    slices().matching("dev.tessera.plugin.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void thePluginDoesNotDependOnTheController() {
    noClasses()
        .that()
        .resideInAPackage("dev.tessera.plugin..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tessera.controller..")
        .check(CLASSES);
  }

  @Test
  void thePurePackagesUseNoIoLibrary() {
    noClasses()
        .that()
        .resideInAnyPackage(PURE)
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("io.grpc..", "com.sun.jna..", "io.micronaut..")
                .or(
                    resideInAPackage("io.fabric8..")
                        .and(not(resideInAPackage("io.fabric8.kubernetes.api.model..")))))
        .check(CLASSES);
  }
}
