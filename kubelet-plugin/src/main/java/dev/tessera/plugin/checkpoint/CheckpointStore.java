package dev.tessera.plugin.checkpoint;

import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.fs.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Loads and saves the checkpoint file ({@link CheckpointFile}); every save is atomic and durable.
 */
public final class CheckpointStore {
  private final Path file;
  private final JsonMapper json;

  public CheckpointStore(Path file, JsonMapper json) {
    this.file = file;
    this.json = json;
  }

  public Path file() {
    return file;
  }

  /**
   * The stored checkpoint as seen in this boot, or an empty one when there is none yet.
   *
   * @throws IllegalStateException when the file exists but is not a checkpoint we can read: the
   *     plugin must not start and forget claims it prepared
   */
  public PreparedClaims load(String bootId) {
    if (!Files.exists(file)) {
      return PreparedClaims.empty(bootId);
    }
    try {
      CheckpointFile stored = json.readValue(Files.readAllBytes(file), CheckpointFile.class);
      if (!CheckpointFile.API_VERSION.equals(stored.apiVersion())) {
        throw new IllegalStateException(
            "checkpoint "
                + file
                + " has apiVersion "
                + stored.apiVersion()
                + ", expected "
                + CheckpointFile.API_VERSION);
      }
      return CheckpointRecords.fromFile(stored).inBoot(bootId);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + file, e);
    } catch (JacksonException | IllegalArgumentException e) {
      throw new IllegalStateException("checkpoint " + file + " is corrupt: " + e.getMessage(), e);
    }
  }

  public void save(PreparedClaims checkpoint) throws IOException {
    AtomicFiles.write(file, json.writeValueAsBytes(CheckpointRecords.toFile(checkpoint)));
  }
}
