package dev.tessera.cel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NearestNameTest {
  private static final List<String> NAMES =
      List.of("productName", "profile", "parentUUID", "memory", "multiprocessors", "uuid", "type");

  @Test
  void aSwapOfNeighboursIsOneEdit() {
    assertThat(NearestName.distance("prodcutName", "productName")).isEqualTo(1);
    assertThat(NearestName.of("prodcutName", NAMES)).hasValue("productName");
  }

  @Test
  void theFewestEditsWin() {
    assertThat(NearestName.of("profle", NAMES)).hasValue("profile");
    assertThat(NearestName.of("memroy", NAMES)).hasValue("memory");
    assertThat(NearestName.of("parentUuid", NAMES)).hasValue("parentUUID");
    assertThat(NearestName.of("multiprocesors", NAMES)).hasValue("multiprocessors");
    assertThat(NearestName.of("typ", NAMES)).hasValue("type");
  }

  @Test
  void tiesGoToTheFirstInAlphabeticalOrder() {
    assertThat(NearestName.of("ab", List.of("b", "a"))).hasValue("a");
  }

  @Test
  void aNameFarFromEveryOneHasNoNearest() {
    assertThat(NearestName.of("vendor", NAMES)).isEmpty();
    assertThat(NearestName.of("x", List.of())).isEmpty();
  }
}
