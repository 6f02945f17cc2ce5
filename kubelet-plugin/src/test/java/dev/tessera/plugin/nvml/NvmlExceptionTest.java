package dev.tessera.plugin.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NvmlExceptionTest {
  @Test
  void namesTheCallTheCodeAndNvmlsText() {
    NvmlException e = new NvmlException("nvmlDeviceGetUUID", 15, "GPU is lost");

    assertThat(e).hasMessage("nvmlDeviceGetUUID failed: NVML_ERROR_GPU_IS_LOST (15): GPU is lost");
    assertThat(e.code()).isEqualTo(15);
    assertThat(e.codeName()).isEqualTo("NVML_ERROR_GPU_IS_LOST");
    assertThat(e.call()).isEqualTo("nvmlDeviceGetUUID");
    assertThat(e.description()).isEqualTo("GPU is lost");
    assertThat(e.is(NvmlReturn.NVML_ERROR_GPU_IS_LOST)).isTrue();
    assertThat(e.is(NvmlReturn.NVML_ERROR_NOT_SUPPORTED)).isFalse();
  }

  @Test
  void aCodeWithoutANameStillReads() {
    NvmlException e = new NvmlException("nvmlDeviceGetName", 123, "");

    assertThat(e).hasMessage("nvmlDeviceGetName failed: NVML_RETURN_123 (123)");
    assertThat(e.codeName()).isEqualTo("NVML_RETURN_123");
  }

  @Test
  void mapsEveryCodeOfNvmlH() {
    assertThat(NvmlReturn.nameOf(0)).isEqualTo("NVML_SUCCESS");
    assertThat(NvmlReturn.nameOf(3)).isEqualTo("NVML_ERROR_NOT_SUPPORTED");
    assertThat(NvmlReturn.nameOf(6)).isEqualTo("NVML_ERROR_NOT_FOUND");
    assertThat(NvmlReturn.nameOf(10)).isEqualTo("NVML_ERROR_TIMEOUT");
    assertThat(NvmlReturn.nameOf(25)).isEqualTo("NVML_ERROR_ARGUMENT_VERSION_MISMATCH");
    assertThat(NvmlReturn.nameOf(30)).isEqualTo("NVML_ERROR_RESET_TYPE_NOT_SUPPORTED");
    assertThat(NvmlReturn.nameOf(999)).isEqualTo("NVML_ERROR_UNKNOWN");
    for (int code = 0; code <= 30; code++) {
      assertThat(NvmlReturn.of(code)).as("code %d", code).isPresent();
    }
  }
}
