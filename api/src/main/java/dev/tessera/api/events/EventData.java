package dev.tessera.api.events;

import java.time.Instant;

/**
 * One core v1 Event as it is to be written: a new one ({@code count} 1) or a repeat of an earlier
 * one (the same name, a higher count and a later {@code lastTimestamp}).
 */
public record EventData(
    String namespace,
    String name,
    InvolvedObject object,
    EventType type,
    String reason,
    String message,
    EventSource source,
    int count,
    Instant firstTimestamp,
    Instant lastTimestamp) {}
