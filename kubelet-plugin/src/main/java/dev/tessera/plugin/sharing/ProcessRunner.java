package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Runs a driver tool and waits for it; an interface so unit tests can record instead. */
public interface ProcessRunner {

  /** What a finished command said: its exit status and its output (stdout and stderr together). */
  record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /**
   * @param env added to the plugin's environment
   * @param stdin written to the command's standard input, then closed ({@code ""} for none)
   * @throws IOException when the command cannot be started or does not finish in time
   */
  Result run(List<String> command, Map<String, String> env, String stdin) throws IOException;
}
