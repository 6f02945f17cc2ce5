package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.util.List;

/**
 * The MPS control daemons of this node, one per GPU or MIG device, each with its directories under
 * {@link #paths()}. Every call is idempotent, so a plugin that restarts finds the daemons it
 * started instead of starting them twice.
 */
public interface MpsDaemons {

  MpsPaths paths();

  /** Whether the device's daemon runs and answers. */
  boolean running(String deviceUuid);

  /** Starts the device's daemon, limited to that device, unless it already runs. */
  void start(String deviceUuid) throws IOException;

  /** Tells the device's daemon to quit (if it runs), lets it go and removes its directories. */
  void stop(String deviceUuid) throws IOException;

  /** The devices that have daemon directories here, running or not. */
  List<String> known() throws IOException;
}
