package dev.tessera.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantitiesTest {
  @ParameterizedTest
  @CsvSource({
    "10Gi, 10737418240",
    "512Mi, 536870912",
    "1G, 1000000000",
    "1.5Gi, 1610612736",
    "1e3, 1000",
    "100, 100",
    "1500m, 2",
    "0.5Ki, 512",
    "0.5, 1",
    "-0.5, 0",
    "5e-999999999, 1",
    "1e-2147483648, 1",
    "0e999999999, 0",
    "9223372036854775807, 9223372036854775807",
    "922337203685477580.7e1, 9223372036854775807"
  })
  void parsesKubernetesQuantities(String text, long expected) {
    assertThat(Quantities.parseLong(text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ten", "10Gb", "1..2", "Gi", "9Ei"})
  void rejectsWhatIsNotAQuantity(String text) {
    assertThatThrownBy(() -> Quantities.parseLong(text))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Found by OpaqueConfigDecoderFuzzTest: each hung or threw something else before. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "4783.07e555776360",
        "5.5e2147483647",
        "1e99999999999",
        "9223372036854775808",
        "1e19"
      })
  void rejectsWhatIsOutOfRangeQuickly(String text) {
    assertTimeoutPreemptively(
        Duration.ofSeconds(1),
        () ->
            assertThatThrownBy(() -> Quantities.parseLong(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("out of range"));
  }

  @Test
  void rejectsALongRunOfDigitsWithJunkQuickly() {
    String text = "9".repeat(200_000) + "x";
    assertTimeoutPreemptively(
        Duration.ofSeconds(1),
        () ->
            assertThatThrownBy(() -> Quantities.parseLong(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a quantity"));
  }

  @ParameterizedTest
  @CsvSource({"85899345920, 80Gi", "536870912, 512Mi", "1000, 1000", "1024, 1Ki"})
  void formatsBytesInTheirLargestExactBinaryUnit(long bytes, String expected) {
    assertThat(Quantities.formatBytes(bytes)).isEqualTo(expected);
  }
}
