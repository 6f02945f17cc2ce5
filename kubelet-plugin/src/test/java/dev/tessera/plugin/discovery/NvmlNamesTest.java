package dev.tessera.plugin.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.MigMode;
import dev.tessera.plugin.nvml.MigModeState;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NvmlNamesTest {
  @Test
  void namesArchitecturesLikeNvidiaSmi() {
    assertThat(NvmlNames.architecture(7)).isEqualTo("Ampere");
    assertThat(NvmlNames.architecture(8)).isEqualTo("Ada Lovelace");
    assertThat(NvmlNames.architecture(9)).isEqualTo("Hopper");
    assertThat(NvmlNames.architecture(10)).isEqualTo("Blackwell");
    assertThat(NvmlNames.architecture(0xffffffff)).isEqualTo("Unknown");
  }

  @Test
  void namesBrands() {
    assertThat(NvmlNames.brand(14)).isEqualTo("NVIDIA");
    assertThat(NvmlNames.brand(2)).isEqualTo("Tesla");
    assertThat(NvmlNames.brand(99)).isEqualTo("Unknown");
  }

  @Test
  void formatsCudaVersions() {
    assertThat(NvmlNames.cudaVersion(13000)).isEqualTo("13.0");
    assertThat(NvmlNames.cudaVersion(12090)).isEqualTo("12.9");
    assertThat(NvmlNames.cudaVersion(11040)).isEqualTo("11.4");
  }

  @Test
  void dropsTheMigPrefixOfProfileNames() {
    assertThat(NvmlNames.migProfile("MIG 1g.10gb")).isEqualTo("1g.10gb");
    assertThat(NvmlNames.migProfile("MIG 1g.10gb+me")).isEqualTo("1g.10gb+me");
    assertThat(NvmlNames.migProfile("3g.40gb")).isEqualTo("3g.40gb");
  }

  @Test
  void mapsMigModes() {
    assertThat(NvmlNames.migMode(Optional.empty())).isEqualTo(MigMode.UNSUPPORTED);
    assertThat(NvmlNames.migMode(Optional.of(new MigModeState(false, false))))
        .isEqualTo(MigMode.DISABLED);
    assertThat(NvmlNames.migMode(Optional.of(new MigModeState(true, true))))
        .isEqualTo(MigMode.ENABLED);
    assertThat(NvmlNames.migMode(Optional.of(new MigModeState(false, true))))
        .isEqualTo(MigMode.ENABLE_PENDING_RESET);
    assertThat(NvmlNames.migMode(Optional.of(new MigModeState(true, false))))
        .isEqualTo(MigMode.DISABLE_PENDING_RESET);
  }
}
