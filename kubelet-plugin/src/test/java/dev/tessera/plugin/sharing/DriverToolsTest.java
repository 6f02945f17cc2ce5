package dev.tessera.plugin.sharing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverToolsTest {
  private static final Path HOST_LOADER = Path.of("/lib64/ld-linux-x86-64.so.2");
  private static final Path HOST_LIBC = Path.of("/lib/x86_64-linux-gnu/libc.so.6");

  @TempDir Path root;

  /**
   * A root laid out as a host's: /lib64/ld-linux-x86-64.so.2 an absolute link into lib/, the tool
   * an ELF program. Copies of this machine's loader, libc and cat stand in for the host's.
   */
  private void layOutHostRoot() throws Exception {
    assumeTrue(Files.exists(HOST_LOADER) && Files.exists(HOST_LIBC), "a glibc x86-64 machine");
    Path lib = Files.createDirectories(root.resolve("lib/x86_64-linux-gnu"));
    Files.copy(HOST_LOADER.toRealPath(), lib.resolve("ld-linux-x86-64.so.2"));
    Files.copy(HOST_LIBC.toRealPath(), lib.resolve("libc.so.6"));
    Files.createDirectories(root.resolve("lib64"));
    Files.createSymbolicLink(
        root.resolve("lib64/ld-linux-x86-64.so.2"),
        Path.of("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
    Path bin = Files.createDirectories(root.resolve("usr/bin"));
    Files.copy(
        Path.of("/bin/cat").toRealPath(),
        bin.resolve("nvidia-smi"),
        StandardCopyOption.COPY_ATTRIBUTES);
  }

  @Test
  void aRootsElfToolRunsWithThatRootsLoaderAndLibc() throws Exception {
    layOutHostRoot();
    var tools = new DriverTools(root, new OsProcessRunner(Duration.ofSeconds(10)));

    // cat of its own memory map: the libc it runs with is the root's, not the plugin's.
    var result = tools.run("nvidia-smi", List.of("/proc/self/maps"), Map.of(), "");

    assertThat(result.output())
        .contains(root.resolve("lib/x86_64-linux-gnu/libc.so.6").toString())
        .contains(root.resolve("lib/x86_64-linux-gnu/ld-linux-x86-64.so.2").toString())
        .doesNotContain(" " + HOST_LIBC.toRealPath() + "\n");
  }

  @Test
  void theCommandNamesTheRootsLoaderAndLibraryDirs() throws Exception {
    layOutHostRoot();
    var commands = new ArrayList<List<String>>();
    var tools =
        new DriverTools(
            root,
            (command, env, stdin) -> {
              commands.add(command);
              return new ProcessRunner.Result(0, "");
            });

    tools.run("nvidia-smi", List.of("-L"), Map.of(), "");

    assertThat(commands)
        .singleElement()
        .isEqualTo(
            List.of(
                root.resolve("lib/x86_64-linux-gnu/ld-linux-x86-64.so.2").toString(),
                "--library-path",
                root.resolve("lib/x86_64-linux-gnu") + ":" + root.resolve("lib64"),
                root.resolve("usr/bin/nvidia-smi").toString(),
                "-L"));
  }

  @Test
  void aScriptToolOrARootWithoutALoaderRunsAsItIs() throws Exception {
    // The simulator's stand-ins: shell scripts, in a root with libraries but no loader.
    Files.createDirectories(root.resolve("usr/lib/x86_64-linux-gnu"));
    Path tool = Files.createDirectories(root.resolve("usr/bin")).resolve("nvidia-smi");
    Files.writeString(tool, "#!/bin/sh\necho \"$LD_LIBRARY_PATH\"\n");
    tool.toFile().setExecutable(true);
    var tools = new DriverTools(root, new OsProcessRunner(Duration.ofSeconds(10)));

    assertThat(tools.run("nvidia-smi", List.of(), Map.of(), "").output().strip())
        .isEqualTo(root.resolve("usr/lib/x86_64-linux-gnu").toString());
  }

  @Test
  void linksResolveInsideTheRootAndNeverOutOfIt() throws Exception {
    Files.createDirectories(root.resolve("usr/lib64"));
    Files.writeString(root.resolve("usr/lib64/ld.so"), "loader");
    Files.createSymbolicLink(root.resolve("lib64"), Path.of("usr/lib64")); // merged /usr
    Files.createSymbolicLink(root.resolve("abs"), Path.of("/usr/lib64/ld.so"));
    Files.createSymbolicLink(root.resolve("up"), Path.of("../../../../../usr/lib64/ld.so"));
    Files.createSymbolicLink(root.resolve("loop"), Path.of("/loop"));

    assertThat(RootedPath.resolve(root, "lib64/ld.so")).contains(root.resolve("usr/lib64/ld.so"));
    assertThat(RootedPath.resolve(root, "abs")).contains(root.resolve("usr/lib64/ld.so"));
    assertThat(RootedPath.resolve(root, "up")).contains(root.resolve("usr/lib64/ld.so"));
    assertThat(RootedPath.resolve(root, "loop")).isEmpty();
    assertThat(RootedPath.resolve(root, "lib64/none")).isEmpty();
  }
}
