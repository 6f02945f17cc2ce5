package dev.tessera.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ArgsTest {
  @Test
  void whyTakesAClaimAndANamespaceEitherWay() {
    assertThat(Args.parse(new String[] {"why", "big", "-n", "team"}))
        .extracting(Args::command, Args::claim, Args::namespace)
        .containsExactly("why", Optional.of("big"), Optional.of("team"));
    assertThat(Args.parse(new String[] {"--namespace=team", "why", "big"}).namespace())
        .hasValue("team");
  }

  @Test
  void noCommandIsHelpAndAWrongOneIsRefused() {
    assertThat(Args.parse(new String[] {}).command()).isEqualTo("help");
    assertThatThrownBy(() -> Args.parse(new String[] {"why"}))
        .hasMessageContaining("needs a claim");
    assertThatThrownBy(() -> Args.parse(new String[] {"pods"})).hasMessageContaining("unknown");
  }
}
