package dev.tessera.controller.admission;

import dev.tessera.api.config.FieldError;
import dev.tessera.api.config.OpaqueConfigDecoder;
import dev.tessera.controller.render.PublishedNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The webhook's decision as a function of the request body: an {@code admission.k8s.io/v1}
 * AdmissionReview in, the AdmissionReview with its response out, echoing {@code request.uid}. A
 * body that is no review at all is answered 400 with the reason, never a server error. Opaque
 * configs decide whether the object is allowed ({@link ConfigAdmission}); device selectors only
 * ever add warnings, which kubectl prints ({@link SelectorAdmission}).
 */
public final class AdmissionReviews {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionReviews.class);
  static final String API_VERSION = "admission.k8s.io/v1";
  static final String KIND = "AdmissionReview";

  /**
   * What the API server may send: opaque parameters are any JSON object of up to 10 KiB, which
   * Jackson's defaults (500 deep, numbers of 1,000 digits) do not all read; a review it could not
   * read would be answered 400, and with {@code failurePolicy: Ignore} admitted unjudged. The API
   * server decodes JSON at most 10,000 deep (Go's limit), and no number is longer than the
   * parameters it is in. Both bound what one review costs to read.
   */
  static final StreamReadConstraints LIMITS =
      StreamReadConstraints.builder().maxNestingDepth(10_000).maxNumberLength(10 * 1024).build();

  private final ConfigAdmission admission;
  private final SelectorAdmission selectors;
  private final JsonMapper json;
  private final JsonMapper reader;

  public AdmissionReviews(ConfigAdmission admission, SelectorAdmission selectors, JsonMapper json) {
    this.admission = admission;
    this.selectors = selectors;
    this.json = json;
    this.reader =
        JsonMapper.builder(JsonFactory.builder().streamReadConstraints(LIMITS).build()).build();
  }

  /** The reviews of a driver: its opaque configs decoded, its selectors linted. */
  public static AdmissionReviews of(String driverName, JsonMapper json) {
    return new AdmissionReviews(
        new ConfigAdmission(driverName, new OpaqueConfigDecoder()),
        new SelectorAdmission(new SelectorLint(driverName, PublishedNames.of(driverName))),
        json);
  }

  public WebhookReply review(byte[] body) {
    Object tree;
    try {
      tree = reader.readValue(body, Object.class);
    } catch (JacksonException e) {
      return WebhookReply.badRequest("malformed AdmissionReview: " + e.getOriginalMessage());
    }
    if (!(tree instanceof Map<?, ?> review)
        || !API_VERSION.equals(review.get("apiVersion"))
        || !KIND.equals(review.get("kind"))) {
      return WebhookReply.badRequest("expected an " + API_VERSION + " " + KIND);
    }
    if (!(review.get("request") instanceof Map<?, ?> request)
        || !(request.get("uid") instanceof String uid)
        || uid.isEmpty()) {
      return WebhookReply.badRequest("the AdmissionReview has no request.uid");
    }
    List<FieldError> errors = errors(request);
    List<FieldError> warnings = warnings(request);
    var response = new LinkedHashMap<String, Object>();
    response.put("uid", uid);
    response.put("allowed", errors.isEmpty());
    if (!warnings.isEmpty()) {
      response.put("warnings", warnings.stream().map(FieldError::toString).toList());
      infoAbout(request).log("selector warnings: {}", warnings);
    }
    if (!errors.isEmpty()) {
      String message =
          "invalid opaque config: "
              + errors.stream().map(FieldError::toString).collect(Collectors.joining("; "));
      response.put("status", Map.of("code", 422, "reason", "Invalid", "message", message));
      infoAbout(request).log("denied: {}", message);
    }
    var answer = new LinkedHashMap<String, Object>();
    answer.put("apiVersion", API_VERSION);
    answer.put("kind", KIND);
    answer.put("response", response);
    return WebhookReply.json(json.writeValueAsString(answer));
  }

  @SuppressWarnings("unchecked")
  private List<FieldError> errors(Map<?, ?> request) {
    // DELETE carries no object; there is nothing new to judge.
    if (!(request.get("object") instanceof Map<?, ?> object)) {
      return List.of();
    }
    return admission.errors(kind(request), (Map<String, Object>) object);
  }

  private List<FieldError> warnings(Map<?, ?> request) {
    if (!(request.get("object") instanceof Map<?, ?> object)) {
      return List.of();
    }
    return selectors.warnings(
        kind(request),
        object,
        request.get("oldObject") instanceof Map<?, ?> oldObject ? oldObject : null);
  }

  /** An info line with the object the request is about. */
  private static LoggingEventBuilder infoAbout(Map<?, ?> request) {
    return LOG.atInfo()
        .addKeyValue("kind", kind(request))
        .addKeyValue("namespace", request.get("namespace"))
        .addKeyValue("name", request.get("name"))
        .addKeyValue("operation", request.get("operation"));
  }

  private static String kind(Map<?, ?> request) {
    return request.get("kind") instanceof Map<?, ?> kind && kind.get("kind") instanceof String k
        ? k
        : "";
  }
}
