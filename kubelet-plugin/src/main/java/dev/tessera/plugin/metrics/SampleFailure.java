package dev.tessera.plugin.metrics;

/** One NVML call a sample could not make: the value it would have given is skipped. */
public record SampleFailure(String device, String call, String code) {}
