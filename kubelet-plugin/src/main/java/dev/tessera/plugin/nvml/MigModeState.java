package dev.tessera.plugin.nvml;

/**
 * A GPU's MIG mode from {@code nvmlDeviceGetMigMode}: the one in effect and the one after the next
 * GPU reset.
 */
public record MigModeState(boolean currentEnabled, boolean pendingEnabled) {}
