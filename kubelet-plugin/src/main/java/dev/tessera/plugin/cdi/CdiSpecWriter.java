package dev.tessera.plugin.cdi;

import dev.tessera.plugin.fs.AtomicFiles;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes and removes the per-claim CDI spec files in the CDI directory. Atomic for containerd,
 * which reads them, but not synced to disk: after a power loss, the start-up of the next boot
 * removes every spec of ours (each claim of an earlier boot is rolled back, and a spec no
 * checkpointed claim accounts for is removed), so no spec of an earlier boot is ever used, whatever
 * the disk kept.
 */
public final class CdiSpecWriter {
  private final Path cdiDir;
  private final String prefix;
  private final JsonMapper json;

  public CdiSpecWriter(Path cdiDir, String driverName, JsonMapper json) {
    this.cdiDir = cdiDir;
    // The transient-spec naming of the CDI helpers: <vendor>-<class>_<id>.
    this.prefix = "k8s." + driverName + "-claim_";
    this.json = json;
  }

  public Path specFile(String claimUid) {
    return cdiDir.resolve(prefix + claimUid + ".json");
  }

  public void write(String claimUid, CdiSpec spec) throws IOException {
    AtomicFiles.write(specFile(claimUid), render(spec), Durability.WHOLE);
  }

  /** The content of the spec's file. */
  public byte[] render(CdiSpec spec) {
    return json.writeValueAsBytes(spec);
  }

  public boolean delete(String claimUid) throws IOException {
    return AtomicFiles.delete(specFile(claimUid), Durability.WHOLE);
  }

  /** Claim UIDs that have a spec file of ours in the CDI directory. */
  public List<String> claimUidsWithSpecs() throws IOException {
    if (!Files.isDirectory(cdiDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(cdiDir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith(prefix) && n.endsWith(".json"))
          .map(n -> n.substring(prefix.length(), n.length() - ".json".length()))
          .sorted()
          .toList();
    }
  }
}
