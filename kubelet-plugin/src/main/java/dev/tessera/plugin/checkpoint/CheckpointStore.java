package dev.tessera.plugin.checkpoint;

import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.fs.AtomicFiles;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Loads and saves the checkpoint file ({@link CheckpointFile}); every save is atomic, and whole
 * after a power loss; the caller says whether it must also be durable ({@link Durability}). The
 * file is read again on every load (another plugin process may have written it), but parsed only
 * when its bytes differ from those this store last read or wrote: a prepare's load then costs a
 * read of a few KiB, not a JSON parse and a check of every claim.
 */
public final class CheckpointStore {
  private final Path file;
  private final JsonMapper json;
  private final AtomicFiles.Disk disk;

  /** The bytes last read from or written to the file, and the claims they hold. */
  private record Known(byte[] content, PreparedClaims claims) {}

  private volatile Known known;

  public CheckpointStore(Path file, JsonMapper json) {
    this(file, json, AtomicFiles.FILE_SYSTEM);
  }

  /**
   * @param disk the file system calls each save makes (tests: a disk that fills up)
   */
  public CheckpointStore(Path file, JsonMapper json, AtomicFiles.Disk disk) {
    this.file = file;
    this.json = json;
    this.disk = disk;
  }

  public Path file() {
    return file;
  }

  /**
   * The stored checkpoint as seen in this boot, or an empty one when there is none yet.
   *
   * @throws IllegalStateException when the file exists but is not a checkpoint we can read (torn,
   *     corrupt, of another version, or with a claim twice): the plugin must not start and forget
   *     claims it prepared
   */
  public PreparedClaims load(String bootId) {
    if (!Files.exists(file)) {
      return PreparedClaims.empty(bootId);
    }
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + file, e);
    }
    Known last = known;
    if (last != null && Arrays.equals(last.content(), content)) {
      return last.claims().inBoot(bootId);
    }
    CheckpointFile stored;
    try {
      // A claim UID twice would otherwise be read as the last one alone: a claim forgotten.
      ObjectReader reader =
          json.readerFor(CheckpointFile.class).with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
      stored = reader.readValue(content);
    } catch (JacksonException e) {
      throw unreadable("is corrupt (" + e.getOriginalMessage() + ")", e);
    }
    if (stored == null) {
      throw unreadable("is corrupt (null, not a checkpoint)", null);
    }
    if (!CheckpointFile.API_VERSION.equals(stored.apiVersion())) {
      throw unreadable(
          "has apiVersion " + stored.apiVersion() + ", expected " + CheckpointFile.API_VERSION,
          null);
    }
    String missing = missingField(stored);
    if (missing != null) {
      throw unreadable("is corrupt (no " + missing + ")", null);
    }
    PreparedClaims claims;
    try {
      claims = CheckpointRecords.fromFile(stored);
    } catch (IllegalArgumentException e) {
      throw unreadable("is corrupt (" + e.getMessage() + ")", e);
    }
    known = new Known(content, claims);
    return claims.inBoot(bootId);
  }

  public void save(PreparedClaims checkpoint, Durability durability) throws IOException {
    byte[] content = render(checkpoint);
    AtomicFiles.write(file, content, durability, disk);
    // What a load parses these bytes into: the file's records map to and from the claims whole.
    known = new Known(content, checkpoint);
  }

  /** The bytes {@link #save} writes for {@code checkpoint}, written nowhere. */
  public byte[] render(PreparedClaims checkpoint) {
    return json.writeValueAsBytes(CheckpointRecords.toFile(checkpoint));
  }

  private IllegalStateException unreadable(String problem, Exception cause) {
    return new IllegalStateException(
        "checkpoint "
            + file
            + " "
            + problem
            + ". The plugin does not start without it, so that it forgets no claim it prepared:"
            + " restore the file, or drain the node of pods that use its GPUs and delete the file",
        cause);
  }

  /** The first field a checkpoint the plugin wrote always has and this one lacks; else null. */
  private static String missingField(CheckpointFile checkpoint) {
    if (checkpoint.bootId() == null) {
      return "bootId";
    }
    for (Map.Entry<String, CheckpointFile.Claim> claim : checkpoint.claims().entrySet()) {
      String at = "claims." + claim.getKey();
      CheckpointFile.Claim entry = claim.getValue();
      if (claim.getKey().isEmpty() || entry == null) {
        return at;
      }
      if (entry.state() == null || entry.namespace() == null || entry.name() == null) {
        return at + ".state, .namespace or .name";
      }
      for (CheckpointFile.Device device : entry.devices()) {
        if (device == null
            || device.pool() == null
            || device.device() == null
            || device.uuid() == null
            || device.sharing() == null) {
          return at + ".devices[].pool, .device, .uuid or .sharing";
        }
      }
      for (CheckpointFile.Mig mig : entry.createdMig()) {
        if (mig == null
            || mig.gpuUuid() == null
            || mig.device() == null
            || mig.profile() == null
            || mig.placement() == null) {
          return at + ".createdMig[].gpuUuid, .device, .profile or .placement";
        }
      }
    }
    return null;
  }
}
