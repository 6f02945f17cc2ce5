package dev.tessera.plugin.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvmlLibraryPathTest {
  @TempDir Path root;

  private Path touch(String relative) throws IOException {
    Path path = root.resolve(relative);
    Files.createDirectories(path.getParent());
    return Files.createFile(path);
  }

  @Test
  void findsTheDebianLayoutFirst() throws IOException {
    touch("usr/lib64/libnvidia-ml.so.1");
    Path debian = touch("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");

    assertThat(NvmlLibraryPath.resolve(root)).isEqualTo(debian.toString());
  }

  @Test
  void fallsBackToLib64AndLib() throws IOException {
    Path lib = touch("lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    assertThat(NvmlLibraryPath.resolve(root)).isEqualTo(lib.toString());

    Path lib64 = touch("usr/lib64/libnvidia-ml.so.1");
    assertThat(NvmlLibraryPath.resolve(root)).isEqualTo(lib64.toString());
  }

  @Test
  void aDriverRootWithoutTheLibraryIsLibraryNotFound() {
    assertThatThrownBy(() -> NvmlLibraryPath.resolve(root))
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> assertThat(e.is(NvmlReturn.NVML_ERROR_LIBRARY_NOT_FOUND)).isTrue());
  }

  @Test
  void theHostRootLeavesTheSearchToTheDynamicLoader() {
    String resolved = NvmlLibraryPath.resolve(Path.of("/"));

    assertThat(resolved).endsWith("libnvidia-ml.so.1");
    if (!resolved.startsWith("/")) {
      assertThat(resolved).isEqualTo(NvmlLibraryPath.SONAME);
    }
  }
}
