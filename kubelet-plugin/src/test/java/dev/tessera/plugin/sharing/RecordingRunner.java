package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records the driver tools the plugin runs, as {@code tool args | stdin}, and plays an MPS control
 * daemon: {@code -d} writes this JVM's pid (alive) as the daemon's pid, {@code quit} removes it.
 * {@link #failOn} makes commands containing a text fail.
 */
public final class RecordingRunner implements ProcessRunner {
  public final List<String> calls = new CopyOnWriteArrayList<>();
  private volatile String failOn;

  public void failOn(String text) {
    failOn = text;
  }

  @Override
  public Result run(List<String> command, Map<String, String> env, String stdin)
      throws IOException {
    var words = new ArrayList<>(command);
    words.set(0, Path.of(command.get(0)).getFileName().toString());
    String call = String.join(" ", words) + (stdin.isEmpty() ? "" : " | " + stdin.strip());
    calls.add(call);
    if (failOn != null && call.contains(failOn)) {
      return new Result(1, "injected failure");
    }
    if (words.get(0).equals("nvidia-cuda-mps-control")) {
      Path pid = Path.of(env.get("CUDA_MPS_PIPE_DIRECTORY"), "nvidia-cuda-mps-control.pid");
      if (words.contains("-d")) {
        Files.createDirectories(pid.getParent());
        Files.writeString(pid, Long.toString(ProcessHandle.current().pid()));
      } else if (stdin.contains("quit")) {
        Files.deleteIfExists(pid);
      }
    }
    return new Result(0, "");
  }

  /** The calls of one tool, without its name. */
  public List<String> of(String tool) {
    return calls.stream()
        .filter(c -> c.startsWith(tool + " ") || c.equals(tool))
        .map(c -> c.substring(Math.min(c.length(), tool.length() + 1)))
        .toList();
  }
}
