package dev.tessera.controller.admission;

/** What the webhook answers on HTTP: a status code, and a JSON review or a plain-text error. */
public record WebhookReply(int status, String contentType, String body) {
  static final String JSON = "application/json";
  static final String TEXT = "text/plain; charset=utf-8";

  static WebhookReply json(String body) {
    return new WebhookReply(200, JSON, body);
  }

  static WebhookReply badRequest(String message) {
    return new WebhookReply(400, TEXT, message + "\n");
  }
}
