package dev.tessera.plugin.checkpoint;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
import java.util.LinkedHashMap;

/** Translates between the plugin's prepared claims and the checkpoint file's records. */
final class CheckpointRecords {
  private CheckpointRecords() {}

  static CheckpointFile toFile(PreparedClaims claims) {
    var out = new LinkedHashMap<String, CheckpointFile.Claim>();
    claims.claims().forEach((uid, entry) -> out.put(uid, toFile(entry)));
    return new CheckpointFile(CheckpointFile.API_VERSION, claims.bootId(), out);
  }

  static PreparedClaims fromFile(CheckpointFile file) {
    var out = new LinkedHashMap<String, ClaimEntry>();
    file.claims().forEach((uid, claim) -> out.put(uid, fromFile(claim)));
    return new PreparedClaims(file.bootId(), out);
  }

  private static CheckpointFile.Claim toFile(ClaimEntry e) {
    return new CheckpointFile.Claim(
        CheckpointFile.State.valueOf(e.state().name()),
        e.namespace(),
        e.name(),
        e.devices().stream().map(CheckpointRecords::toFile).toList(),
        e.createdMig().stream().map(CheckpointRecords::toFile).toList());
  }

  private static ClaimEntry fromFile(CheckpointFile.Claim c) {
    return new ClaimEntry(
        ClaimState.valueOf(c.state().name()),
        c.namespace(),
        c.name(),
        c.devices().stream().map(CheckpointRecords::fromFile).toList(),
        c.createdMig().stream().map(CheckpointRecords::fromFile).toList());
  }

  private static CheckpointFile.Device toFile(PreparedDevice d) {
    var s = d.settings();
    return new CheckpointFile.Device(
        d.requestNames(),
        d.pool(),
        d.device(),
        d.cdiDeviceIds(),
        d.uuid(),
        d.sharing().configName(),
        d.shareId(),
        new CheckpointFile.Settings(
            s.timeSliceInterval(), s.activeThreadPercentage(), s.pinnedMemoryBytes()),
        d.adminAccess());
  }

  private static PreparedDevice fromFile(CheckpointFile.Device d) {
    var s = d.settings();
    return new PreparedDevice(
        d.requestNames(),
        d.pool(),
        d.device(),
        d.cdiDeviceIds(),
        d.uuid(),
        SharingStrategy.ofConfigName(d.sharing())
            .orElseThrow(
                () -> new IllegalArgumentException("unknown sharing strategy " + d.sharing())),
        d.shareId(),
        s == null
            ? SharingSettings.NONE
            : new SharingSettings(
                s.timeSliceInterval(), s.activeThreadPercentage(), s.pinnedMemoryBytes()),
        d.adminAccess());
  }

  private static CheckpointFile.Mig toFile(CreatedMig m) {
    return new CheckpointFile.Mig(
        m.gpuUuid(),
        m.device(),
        m.profileId(),
        m.profile(),
        new CheckpointFile.Placement(m.placement().start(), m.placement().size()),
        m.gpuInstanceId(),
        m.computeInstanceId(),
        m.uuid(),
        m.enabledMigMode());
  }

  private static CreatedMig fromFile(CheckpointFile.Mig m) {
    return new CreatedMig(
        m.gpuUuid(),
        m.device(),
        m.profileId(),
        m.profile(),
        new MigPlacement(m.placement().start(), m.placement().size()),
        m.gpuInstanceId(),
        m.computeInstanceId(),
        m.uuid(),
        m.enabledMigMode());
  }
}
