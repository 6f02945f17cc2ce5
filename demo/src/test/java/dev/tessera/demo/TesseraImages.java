package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Tessera's two images as {@code hack/images} builds them (OCI archives, no registry), for {@code
 * hack/cluster/install-tessera} to import into the local cluster's containerd. Built again only
 * when a jar is newer than them (two to four minutes on 2 cores, most of it the plugin image's AOT
 * training run).
 */
final class TesseraImages {
  private static final List<String> IMAGES = List.of("kubelet-plugin", "controller");
  private static final Path OUT = TesseraOnNode.repoFile("demo/target/images");

  private TesseraImages() {}

  /** Builds the archives if a jar is newer than them; returns their directory. */
  static Path build() throws IOException, InterruptedException {
    if (stale()) {
      sh(TesseraOnNode.repoFile("hack/images") + " " + OUT);
    }
    return OUT;
  }

  private static boolean stale() throws IOException {
    var jars =
        List.of(
            TesseraOnNode.repoFile("kubelet-plugin/target/tessera-kubelet-plugin.jar"),
            TesseraOnNode.repoFile("controller/target/tessera-controller.jar"));
    for (String image : IMAGES) {
      Path archive = archive(image);
      if (!Files.exists(archive)) {
        return true;
      }
      for (Path jar : jars) {
        if (Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(archive)) > 0) {
          return true;
        }
      }
    }
    return false;
  }

  private static Path archive(String image) {
    return OUT.resolve(image + ".oci.tar");
  }

  private static void sh(String command) throws IOException, InterruptedException {
    Process p = ProcessOutput.start(new ProcessBuilder("bash", "-c", command));
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).as(command).isTrue();
    assertThat(p.exitValue()).as(command).isZero();
  }
}
