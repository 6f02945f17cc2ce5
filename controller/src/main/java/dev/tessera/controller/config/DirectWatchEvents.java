package dev.tessera.controller.config;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.util.JsonParserSequence;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Reads a watch event whose object is of one of the given kinds straight into that kind's class.
 * fabric8 reads every event's object into a JSON tree first, to find its kind, and then the tree
 * into the class; for the plugins' Lease renewals (500 a second at 5,000 nodes) that tree was most
 * of the controller's CPU per renewal (docs/benchmarks.md).
 *
 * <p>The API server writes an event's {@code type} before its {@code object}, and an object's
 * {@code kind} and {@code apiVersion} first (Go's TypeMeta leads every object), so both are known
 * after the first few tokens. An event in any other shape, or of another kind, goes to fabric8's
 * own deserializer with the tokens read so far replayed: it is read exactly as without this.
 */
final class DirectWatchEvents extends DelegatingDeserializer {
  private final Map<String, Class<? extends HasMetadata>> kinds;

  /**
   * Each kind's deserializer, found once: {@code ctxt.readValue(p, type)} looks it up again on
   * every call, introspecting the class's annotations for a type deserializer each time (a third of
   * a Lease event's reading in the profile, docs/benchmarks.md).
   */
  private final Map<Class<?>, ValueDeserializer<Object>> deserializers;

  private DirectWatchEvents(
      ValueDeserializer<?> fabric8s,
      Map<String, Class<? extends HasMetadata>> kinds,
      Map<Class<?>, ValueDeserializer<Object>> deserializers) {
    super(fabric8s);
    this.kinds = kinds;
    this.deserializers = deserializers;
  }

  /** A module that reads watch events of {@code kinds} straight, any other as fabric8 does. */
  static SimpleModule module(List<Class<? extends HasMetadata>> kinds) {
    return new SimpleModule("tessera-direct-watch-events")
        .setDeserializerModifier(
            new ValueDeserializerModifier() {
              @Override
              public ValueDeserializer<?> modifyDeserializer(
                  DeserializationConfig config,
                  BeanDescription.Supplier bean,
                  ValueDeserializer<?> deserializer) {
                return bean.getBeanClass() == WatchEvent.class
                    ? wrapping(deserializer, kinds)
                    : deserializer;
              }
            });
  }

  /** Wraps fabric8's deserializer of watch events; {@code kinds} are read straight. */
  static DirectWatchEvents wrapping(
      ValueDeserializer<?> fabric8s, List<Class<? extends HasMetadata>> kinds) {
    return new DirectWatchEvents(
        fabric8s,
        kinds.stream()
            .collect(
                Collectors.toUnmodifiableMap(
                    k -> key(HasMetadata.getApiVersion(k), HasMetadata.getKind(k)),
                    Function.identity())),
        new ConcurrentHashMap<>());
  }

  @Override
  protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> newDelegatee) {
    return new DirectWatchEvents(newDelegatee, kinds, deserializers);
  }

  @Override
  public Object deserialize(JsonParser p, DeserializationContext ctxt) {
    if (!p.isExpectedStartObjectToken()) {
      return _delegatee.deserialize(p, ctxt);
    }
    // Every token taken from p goes here first, so that fabric8 can be given all of them.
    TokenBuffer taken = ctxt.bufferForInputBuffering(p);
    taken.copyCurrentEvent(p);
    if (!name(p, taken, "type") || next(p, taken) != JsonToken.VALUE_STRING) {
      return fabric8s(taken, p, ctxt);
    }
    String type = p.getString();
    if (!name(p, taken, "object") || next(p, taken) != JsonToken.START_OBJECT) {
      return fabric8s(taken, p, ctxt);
    }
    String kind = stringNamed(p, taken, "kind");
    String apiVersion = kind == null ? null : stringNamed(p, taken, "apiVersion");
    Class<? extends HasMetadata> direct =
        apiVersion == null ? null : kinds.get(key(apiVersion, kind));
    if (direct == null) {
      return fabric8s(taken, p, ctxt);
    }
    // The object's first two properties again, then the rest of it from p.
    TokenBuffer head = ctxt.bufferForInputBuffering(p);
    head.writeStartObject();
    head.writeStringProperty("kind", kind);
    head.writeStringProperty("apiVersion", apiVersion);
    JsonParser object = JsonParserSequence.createFlattened(false, head.asParser(ctxt, p), p);
    object.nextToken();
    ValueDeserializer<Object> deserializer =
        deserializers.computeIfAbsent(
            direct, k -> ctxt.findRootValueDeserializer(ctxt.constructType(k)));
    var event = new WatchEvent(deserializer.deserialize(object, ctxt), type);
    // Anything after the object (the API server sends nothing) is kept, as fabric8 keeps it.
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String name = p.currentName();
      p.nextToken();
      event.setAdditionalProperty(name, ctxt.readValue(p, Object.class));
    }
    return event;
  }

  private static String key(String apiVersion, String kind) {
    return apiVersion + "/" + kind;
  }

  private static JsonToken next(JsonParser p, TokenBuffer taken) {
    JsonToken token = p.nextToken();
    if (token != null) {
      taken.copyCurrentEvent(p);
    }
    return token;
  }

  private static boolean name(JsonParser p, TokenBuffer taken, String name) {
    return next(p, taken) == JsonToken.PROPERTY_NAME && name.equals(p.currentName());
  }

  /** The string value of the next property if it is {@code name}, else null. */
  private static String stringNamed(JsonParser p, TokenBuffer taken, String name) {
    return name(p, taken, name) && next(p, taken) == JsonToken.VALUE_STRING ? p.getString() : null;
  }

  /** fabric8's reading of the event: the tokens taken from p, then the rest of p. */
  private Object fabric8s(TokenBuffer taken, JsonParser p, DeserializationContext ctxt) {
    JsonParser all = JsonParserSequence.createFlattened(false, taken.asParser(ctxt, p), p);
    all.nextToken();
    return _delegatee.deserialize(all, ctxt);
  }
}
