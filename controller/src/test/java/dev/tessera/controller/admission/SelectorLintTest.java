package dev.tessera.controller.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.PublishedNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SelectorLintTest {
  private static final String D = "gpu.tessera.dev";
  private static final SelectorLint LINT = new SelectorLint(D, PublishedNames.of(D));

  private static String attr(String rest) {
    return "device.attributes[\"gpu.tessera.dev\"]" + rest;
  }

  private static String cap(String rest) {
    return "device.capacity[\"gpu.tessera.dev\"]" + rest;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "device.driver == \"gpu.tessera.dev\"",
        "device.attributes[\"gpu.tessera.dev\"].productName == \"NVIDIA H100 80GB HBM3\"",
        "device.attributes[\"gpu.tessera.dev\"][\"productName\"].startsWith(\"NVIDIA H\")",
        "device.attributes[\"gpu.tessera.dev\"].type == 'mig'"
            + " && device.attributes[\"gpu.tessera.dev\"].profile == '3g.40gb'",
        "device.attributes[\"gpu.tessera.dev\"].driverVersion.isGreaterThan(semver(\"580.0.0\"))",
        "device.attributes[\"gpu.tessera.dev\"].cudaComputeCapability"
            + ".compareTo(semver(\"9.0\", true)) >= 0",
        "device.attributes[\"gpu.tessera.dev\"].driverVersion == semver(\"580.95.5\")",
        "device.attributes[\"gpu.tessera.dev\"].cudaDriverVersion.major() >= 13",
        "device.capacity[\"gpu.tessera.dev\"].memory.compareTo(quantity(\"40Gi\")) >= 0",
        "device.capacity[\"gpu.tessera.dev\"].memory.isGreaterThan(quantity(\"10Gi\"))",
        "device.capacity[\"gpu.tessera.dev\"].memory.asInteger() > 42949672960",
        "device.capacity[\"gpu.tessera.dev\"].compute.isLessThan(quantity(\"100\"))",
        "device.capacity[\"gpu.tessera.dev\"].multiprocessors.compareTo(quantity(\"16\")) == 0",
        "has(device.attributes[\"gpu.tessera.dev\"].parentUUID)",
        "device.attributes[\"gpu.tessera.dev\"].numaNode == 0",
        "device.attributes[\"resource.kubernetes.io\"].pcieRoot == 'pci0000:00'"
            + " && device.driver == 'gpu.tessera.dev'",
        "device.attributes[\"gpu.tessera.dev\"].productName.lowerAscii().contains('h100')",
        "device.attributes[\"gpu.tessera.dev\"].productName in ['A', 'B']",
        "device.attributes[\"gpu.tessera.dev\"].brand.matches('^NVIDIA$')",
        "'productName' in device.attributes[\"gpu.tessera.dev\"]",
        "device.allowMultipleAllocations && device.driver == 'gpu.tessera.dev'",
        "device.attributes[\"gpu.tessera.dev\"].uuid == device.attributes[\"gpu.tessera.dev\"].uuid",
      })
  void aGoodSelectorHasNothingToSay(String expression) {
    assertThat(LINT.warnings(expression)).isEmpty();
  }

  @Test
  void aMistypedAttributeNamesTheNearestPublishedOne() {
    assertThat(LINT.warnings(attr(".prodcutName == 'NVIDIA H100 80GB HBM3'")))
        .containsExactly(
            "gpu.tessera.dev publishes no attribute \"prodcutName\"; did you mean"
                + " \"productName\"?");
  }

  @Test
  void anIndexByNameIsLintedLikeASelect() {
    assertThat(LINT.warnings(attr("[\"drvierVersion\"] == semver('1.0.0')")))
        .containsExactly(
            "gpu.tessera.dev publishes no attribute \"drvierVersion\"; did you mean"
                + " \"driverVersion\"?");
  }

  @Test
  void aMistypedCapacityNamesTheNearestPublishedOne() {
    assertThat(LINT.warnings(cap(".memroy.compareTo(quantity('40Gi')) >= 0")))
        .containsExactly(
            "gpu.tessera.dev publishes no capacity \"memroy\"; did you mean \"memory\"?");
  }

  @Test
  void hasOfAMistypedNameIsWarnedOf() {
    assertThat(LINT.warnings("has(" + attr(".parentUuid") + ")"))
        .containsExactly(
            "gpu.tessera.dev publishes no attribute \"parentUuid\"; did you mean"
                + " \"parentUUID\"?");
  }

  @Test
  void aNameFarFromAnyListsWhatIsPublished() {
    assertThat(LINT.warnings(attr(".vendor == 'nvidia'")))
        .singleElement()
        .asString()
        .startsWith("gpu.tessera.dev publishes no attribute \"vendor\"; it publishes ")
        .contains("architecture, brand, cudaComputeCapability", "productName", "uuid");
  }

  @Test
  void aStandardAttributeInTheDriversDomainPointsToItsOwn() {
    assertThat(LINT.warnings(attr(".pcieRoot == 'pci0000:00'")))
        .containsExactly(
            "gpu.tessera.dev publishes no attribute \"pcieRoot\"; it is in"
                + " device.attributes[\"resource.kubernetes.io\"].pcieRoot");
  }

  @Test
  void anAttributeReadAsACapacityIsSaidToBeOne() {
    assertThat(LINT.warnings(cap(".profile == '1g.10gb'")))
        .containsExactly(
            "gpu.tessera.dev publishes no capacity \"profile\"; it is an attribute:"
                + " device.attributes[\"gpu.tessera.dev\"].profile");
  }

  @Test
  void aQualifiedNameAsTheMapsKeyIsSaidToBeKeyedByDomain() {
    assertThat(LINT.warnings("device.attributes[\"gpu.tessera.dev/productName\"] == 'x'"))
        .containsExactly(
            "device.attributes is keyed by domain: write"
                + " device.attributes[\"gpu.tessera.dev\"].productName");
    assertThat(LINT.warnings("device.capacity['gpu.tessera.dev/memory'].isInteger()"))
        .containsExactly(
            "device.capacity is keyed by domain: write"
                + " device.capacity[\"gpu.tessera.dev\"].memory");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "device.attributes[\"gpu.tessera.dev\"].driverVersion == \"580.95.05\"",
        "device.attributes[\"gpu.tessera.dev\"].driverVersion >= \"580\"",
        "device.attributes[\"gpu.tessera.dev\"].driverVersion > semver(\"580.0.0\")",
        "device.attributes[\"gpu.tessera.dev\"].driverVersion.isGreaterThan(\"580.0.0\")",
      })
  void aVersionComparedWithAStringIsWarnedOf(String expression) {
    assertThat(LINT.warnings(expression))
        .containsExactly(
            "attribute \"driverVersion\" of gpu.tessera.dev is a version: compare it with"
                + " semver(\"1.2.3\") through compareTo(), isGreaterThan() or isLessThan(), or"
                + " ==");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "device.capacity[\"gpu.tessera.dev\"].memory >= 42949672960",
        "device.capacity[\"gpu.tessera.dev\"].memory == 42949672960",
        "device.capacity[\"gpu.tessera.dev\"].memory >= quantity(\"40Gi\")",
        "device.capacity[\"gpu.tessera.dev\"].memory.isGreaterThan(40)",
        "device.capacity[\"gpu.tessera.dev\"][\"memory\"] > \"40Gi\"",
      })
  void memoryComparedWithANumberIsWarnedOf(String expression) {
    assertThat(LINT.warnings(expression))
        .containsExactly(
            "capacity \"memory\" of gpu.tessera.dev is a quantity: compare it with"
                + " quantity(\"40Gi\") through compareTo(), isGreaterThan() or isLessThan()");
  }

  @Test
  void stringsAndIntsOfTheWrongTypeAreWarnedOf() {
    assertThat(LINT.warnings(attr(".productName == 100")))
        .containsExactly("attribute \"productName\" of gpu.tessera.dev is a string");
    assertThat(LINT.warnings(attr(".numaNode == '0'")))
        .containsExactly("attribute \"numaNode\" of gpu.tessera.dev is an int");
  }

  @Test
  void everyProblemOfASelectorIsSaidOnce() {
    assertThat(
            LINT.warnings(
                attr(".prodcutName == 'x' && ")
                    + attr(".prodcutName != 'y' || ")
                    + cap(".memory > 1 || ")
                    + attr(".driverVersion == '1'")))
        .containsExactly(
            "gpu.tessera.dev publishes no attribute \"prodcutName\"; did you mean"
                + " \"productName\"?",
            "capacity \"memory\" of gpu.tessera.dev is a quantity: compare it with"
                + " quantity(\"40Gi\") through compareTo(), isGreaterThan() or isLessThan()",
            "attribute \"driverVersion\" of gpu.tessera.dev is a version: compare it with"
                + " semver(\"1.2.3\") through compareTo(), isGreaterThan() or isLessThan(), or"
                + " ==");
  }

  @Test
  void aNameInsideAMacroIsLinted() {
    assertThat(LINT.warnings("['a', 'b'].exists(p, " + attr(".profle == p") + ")"))
        .containsExactly(
            "gpu.tessera.dev publishes no attribute \"profle\"; did you mean \"profile\"?");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        // does not parse: the API server says so
        "device.attributes[\"gpu.tessera.dev\"].prodcutName ==",
        "device.attributes[\"gpu.tessera.dev\"].(",
        // other drivers' domains and no domain at all are not ours
        "device.attributes[\"dra.example.com\"].prodcutName == 'x'",
        "device.capacity[\"dra.example.com\"].memory > 1",
        "device.attributes[\"resource.kubernetes.io\"].pcieRot == 'x'",
        // a function we do not know is the API server's to judge, not ours
        "device.driver == 'gpu.tessera.dev' && unknownFunction(device.driver)",
        "device.attributes[\"gpu.tessera.dev\"].productName.frobnicate()",
        // a variable that is not the device
        "other.attributes[\"gpu.tessera.dev\"].prodcutName == 'x'",
      })
  void whatIsNotOursIsLeftAlone(String expression) {
    assertThat(LINT.warnings(expression)).isEmpty();
  }

  @Test
  void aLintOfAnotherDriverNameUsesThatDomain() {
    var lint = new SelectorLint("gpu.example.com", PublishedNames.of("gpu.example.com"));
    assertThat(lint.warnings("device.attributes[\"gpu.example.com\"].prodcutName == 'x'"))
        .singleElement()
        .asString()
        .contains("did you mean \"productName\"?");
    assertThat(lint.warnings(attr(".prodcutName == 'x'"))).isEmpty();
  }
}
