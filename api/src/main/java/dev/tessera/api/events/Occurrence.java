package dev.tessera.api.events;

import java.util.Objects;

/**
 * Something that happened to an object and is worth an Event: what a component asks to record,
 * before correlation decides whether it is a new Event, a repeat of one, or dropped.
 *
 * @param reason UpperCamelCase, a short machine-readable cause ({@code Prepared})
 * @param message for people; cut to {@link #MAX_MESSAGE} characters
 */
public record Occurrence(InvolvedObject object, EventType type, String reason, String message) {
  /** The most an Event's message carries (client-go's recorder cuts at 1 KiB as well). */
  public static final int MAX_MESSAGE = 1024;

  public Occurrence {
    Objects.requireNonNull(object, "object");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(reason, "reason");
    message = message == null ? "" : message;
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE - 3) + "...";
    }
  }
}
