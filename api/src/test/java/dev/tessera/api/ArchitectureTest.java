package dev.tessera.api;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The API module's arrows: it depends on no app, its packages form no cycle, and its types (all but
 * the generated kubelet gRPC stubs) are plain values with no I/O library behind them.
 */
class ArchitectureTest {
  private static final JavaClasses API =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tessera.api");

  @Test
  void dependsOnNoApp() {
    noClasses()
        .that()
        .resideInAPackage("dev.tessera.api..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tessera.plugin..", "dev.tessera.controller..", "dev.tessera.demo..")
        .check(API);
  }

  @Test
  void packagesFormNoCycle() {
    slices().matching("dev.tessera.api.(*)..").should().beFreeOfCycles().check(API);
  }

  /** Attribute names, inventory, health, opaque config decoding and Event correlation: no I/O. */
  @Test
  void valueTypesAndConfigDecodingUseNoIoLibrary() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.tessera.api",
            "dev.tessera.api.config..",
            "dev.tessera.api.inventory..",
            "dev.tessera.api.health..",
            "dev.tessera.api.events..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("io.fabric8..", "io.grpc..", "com.sun.jna..", "io.micronaut.."))
        .check(API);
  }
}
