package dev.tessera.controller;

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
 * The controller's arrows all point one way: no package cycle, no arrow to the node plugin (whose
 * classes are on the test class path for the ITs), and what decides the slices (the {@code render}
 * package, {@code publish.PoolPlanner} and the {@code publish.NodeInputs} it reads, and {@code
 * events.HealthTransitions}) names no gRPC, JNA, Micronaut or Kubernetes client type; Kubernetes
 * model objects are values and may be built there.
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tessera.controller", "dev.tessera.api");

  @Test
  void packagesFormNoCycle() {
    slices().matching("dev.tessera.(*)..").should().beFreeOfCycles().check(CLASSES);
    slices().matching("dev.tessera.controller.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void theControllerDoesNotDependOnThePlugin() {
    noClasses()
        .that()
        .resideInAPackage("dev.tessera.controller..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tessera.plugin..")
        .check(CLASSES);
  }

  @Test
  void whatDecidesTheSlicesUsesNoIoLibrary() {
    noClasses()
        .that()
        .resideInAPackage("dev.tessera.controller.render..")
        .or()
        .haveFullyQualifiedName("dev.tessera.controller.publish.PoolPlanner")
        .or()
        .haveFullyQualifiedName("dev.tessera.controller.publish.NodeInputs")
        .or()
        .haveFullyQualifiedName("dev.tessera.controller.events.HealthTransitions")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("io.grpc..", "com.sun.jna..", "io.micronaut..")
                .or(
                    resideInAPackage("io.fabric8..")
                        .and(not(resideInAPackage("io.fabric8.kubernetes.api.model..")))))
        .check(CLASSES);
  }
}
