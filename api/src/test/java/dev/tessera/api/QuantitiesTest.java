package dev.tessera.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    "0.5Ki, 512"
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

  @ParameterizedTest
  @CsvSource({"85899345920, 80Gi", "536870912, 512Mi", "1000, 1000", "1024, 1Ki"})
  void formatsBytesInTheirLargestExactBinaryUnit(long bytes, String expected) {
    assertThat(Quantities.formatBytes(bytes)).isEqualTo(expected);
  }
}
