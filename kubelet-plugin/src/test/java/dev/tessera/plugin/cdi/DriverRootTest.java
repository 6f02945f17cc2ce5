package dev.tessera.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverRootTest {
  private final DriverRoot hostInstall = new DriverRoot(Path.of("/driver-root"), Path.of("/"));

  @Test
  void aFileThePluginSeesIsNamedByTheHostsPathAndTheContainersPath() {
    Path lib = Path.of("/driver-root/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    assertThat(hostInstall.onHost(lib))
        .isEqualTo(Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
    assertThat(hostInstall.inContainer(lib)).isEqualTo("/usr/lib/x86_64-linux-gnu/libcuda.so.1");

    var operator = new DriverRoot(Path.of("/driver-root"), Path.of("/run/nvidia/driver"));
    assertThat(operator.onHost(lib))
        .isEqualTo(Path.of("/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  }

  @Test
  void aFileOutsideTheDriverRootIsRefused() {
    assertThatThrownBy(() -> hostInstall.onHost(Path.of("/driver-root/../etc/passwd")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not under the driver root /driver-root");
  }

  @Test
  void deviceNodesComeFromTheHostsDevWhenTheDriverRootHasNone(@TempDir Path dir) throws Exception {
    // A containerized driver's root without device nodes: they are the host's, at /dev.
    var paths = NodePaths.forDriverRoot(new DriverRoot(dir, Path.of("/run/nvidia/driver")));
    assertThat(paths.deviceNode("/dev/nvidia0").hostPath()).isNull();

    // A host install mounted at dir: its dev/ has them, named by the host's path.
    Files.createDirectories(dir.resolve("dev"));
    Files.createFile(dir.resolve("dev/nvidiactl"));
    var hostRoot = NodePaths.forDriverRoot(new DriverRoot(dir, Path.of("/")));
    assertThat(hostRoot.exists("/dev/nvidiactl")).isTrue();
    assertThat(hostRoot.deviceNode("/dev/nvidiactl").hostPath())
        .isNull(); // same path: no host path
    var elsewhere = NodePaths.forDriverRoot(new DriverRoot(dir, Path.of("/host/root")));
    assertThat(elsewhere.deviceNode("/dev/nvidia0").hostPath()).isEqualTo("/host/root/dev/nvidia0");
  }
}
