package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs commands as child processes, killing one that outlives the timeout. */
public final class OsProcessRunner implements ProcessRunner {
  private final Duration timeout;

  public OsProcessRunner(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public Result run(List<String> command, Map<String, String> env, String stdin)
      throws IOException {
    var builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    try {
      // Tools that daemonize must not keep our pipe open, so reading to the end is safe.
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException(command.get(0) + " did not finish within " + timeout);
      }
      return new Result(process.exitValue(), output.strip());
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(command.get(0) + " was interrupted", e);
    }
  }
}
