package dev.tessera.plugin.nvml;

/** A GPU- or compute-instance placement: the first slice it occupies and how many. */
public record Placement(int start, int size) {}
