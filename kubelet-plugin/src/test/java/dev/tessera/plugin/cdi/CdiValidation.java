package dev.tessera.plugin.cdi;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checks a CDI spec file must pass before containerd (through container-device-interface's
 * {@code pkg/cdi} cache) injects its devices, written here from the CDI spec and that library's
 * validation, not copied: every problem found, empty when the spec loads. What it checks:
 *
 * <ul>
 *   <li>parsing is strict: a field the spec's schema does not have, a value of the wrong JSON type,
 *       or a key named twice refuses the file;
 *   <li>{@code cdiVersion} is a version the library knows (a leading {@code v} allowed), and at
 *       least the lowest version whose features the spec uses (0.4.0 mount types, 0.5.0 device node
 *       host paths and device names starting with a digit, 0.6.0 annotations and a class with a
 *       dot, 0.7.0 Intel RDT and additional GIDs, 1.1.0 net devices, RDT schemata, monitoring);
 *   <li>{@code kind} is {@code vendor/class}: each starts with a letter, ends with a letter or
 *       digit, and has only letters, digits, {@code _ - .} between;
 *   <li>at least one device; names unique, each starting and ending with a letter or digit with
 *       only letters, digits, {@code _ - . :} between; every device has some container edit;
 *   <li>container edits: env entries {@code KEY=VALUE} with a non-empty key; device nodes with a
 *       path, a type of {@code b c u p} or none, permissions of {@code r w m} (or {@code none});
 *       hooks with a known hook name, a path and valid env; mounts with both paths; net devices
 *       with both names, each unique.
 * </ul>
 *
 * <p>And what the OCI runtime (runc) needs of what CDI hands it: absolute container paths for
 * device nodes and mounts, absolute host paths. CDI leaves those to the runtime; a spec that breaks
 * them loads but its containers fail to start.
 */
final class CdiValidation {
  static final List<String> VERSIONS =
      List.of(
          "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0");
  private static final Set<String> HOOK_NAMES =
      Set.of(
          "prestart",
          "createRuntime",
          "createContainer",
          "startContainer",
          "poststart",
          "poststop");
  private static final JsonMapper STRICT =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private enum Type {
    STRING,
    STRINGS,
    STRING_MAP,
    INT,
    UINT32,
    UINT32S,
    BOOL,
    OBJECT,
    OBJECTS
  }

  private static final Map<String, Type> SPEC =
      Map.of(
          "cdiVersion", Type.STRING,
          "kind", Type.STRING,
          "annotations", Type.STRING_MAP,
          "devices", Type.OBJECTS,
          "containerEdits", Type.OBJECT);
  private static final Map<String, Type> DEVICE =
      Map.of("name", Type.STRING, "annotations", Type.STRING_MAP, "containerEdits", Type.OBJECT);
  private static final Map<String, Type> EDITS =
      Map.of(
          "env", Type.STRINGS,
          "deviceNodes", Type.OBJECTS,
          "netDevices", Type.OBJECTS,
          "hooks", Type.OBJECTS,
          "mounts", Type.OBJECTS,
          "intelRdt", Type.OBJECT,
          "additionalGids", Type.UINT32S);
  private static final Map<String, Type> DEVICE_NODE =
      Map.of(
          "path", Type.STRING,
          "hostPath", Type.STRING,
          "type", Type.STRING,
          "major", Type.INT,
          "minor", Type.INT,
          "fileMode", Type.UINT32,
          "permissions", Type.STRING,
          "uid", Type.UINT32,
          "gid", Type.UINT32);
  private static final Map<String, Type> MOUNT =
      Map.of(
          "hostPath", Type.STRING,
          "containerPath", Type.STRING,
          "options", Type.STRINGS,
          "type", Type.STRING);
  private static final Map<String, Type> HOOK =
      Map.of(
          "hookName", Type.STRING,
          "path", Type.STRING,
          "args", Type.STRINGS,
          "env", Type.STRINGS,
          "timeout", Type.INT);
  private static final Map<String, Type> INTEL_RDT =
      Map.of(
          "closID", Type.STRING,
          "l3CacheSchema", Type.STRING,
          "memBwSchema", Type.STRING,
          "schemata", Type.STRINGS,
          "enableMonitoring", Type.BOOL);
  private static final Map<String, Type> NET_DEVICE =
      Map.of("hostInterfaceName", Type.STRING, "name", Type.STRING);

  private final List<String> problems = new ArrayList<>();
  private String required = "0.3.0";

  private CdiValidation() {}

  /** Every problem containerd's CDI cache or the runtime would have with this spec file. */
  static List<String> problems(byte[] specFile) {
    var validation = new CdiValidation();
    JsonNode spec;
    try {
      spec = STRICT.readTree(specFile);
    } catch (JacksonException e) {
      return List.of("not JSON: " + e.getOriginalMessage());
    }
    validation.spec(spec);
    return List.copyOf(validation.problems);
  }

  private void spec(JsonNode spec) {
    if (!schema(spec, SPEC, "spec")) {
      return;
    }
    String kind = spec.path("kind").asString("");
    int slash = kind.indexOf('/');
    if (slash <= 0 || slash == kind.length() - 1) {
      problems.add("kind " + kind + ": not vendor/class");
    } else {
      vendorOrClass("vendor", kind.substring(0, slash));
      String cls = kind.substring(slash + 1);
      vendorOrClass("class", cls);
      if (cls.contains(".")) {
        require("0.6.0");
      }
    }
    if (!spec.path("annotations").isEmpty()) {
      require("0.6.0");
    }
    edits(spec.path("containerEdits"), "containerEdits");
    var names = new HashSet<String>();
    int i = 0;
    for (JsonNode device : spec.path("devices")) {
      String at = "devices[" + i++ + "]";
      if (!schema(device, DEVICE, at)) {
        continue;
      }
      String name = device.path("name").asString("");
      deviceName(at, name);
      if (!names.add(name)) {
        problems.add(at + ": device " + name + " named twice");
      }
      if (!device.path("annotations").isEmpty()) {
        require("0.6.0");
      }
      if (isEmptyEdits(device.path("containerEdits"))) {
        problems.add(at + ": empty device edits");
      }
      edits(device.path("containerEdits"), at + ".containerEdits");
    }
    if (names.isEmpty()) {
      problems.add("no devices");
    }
    version(spec.path("cdiVersion").asString(""));
  }

  private void version(String cdiVersion) {
    String version = cdiVersion.startsWith("v") ? cdiVersion.substring(1) : cdiVersion;
    if (!VERSIONS.contains(version)) {
      problems.add("cdiVersion " + cdiVersion + ": unknown");
    } else if (VERSIONS.indexOf(version) < VERSIONS.indexOf(required)) {
      problems.add("cdiVersion " + cdiVersion + ": the spec needs at least " + required);
    }
  }

  private void require(String version) {
    if (VERSIONS.indexOf(version) > VERSIONS.indexOf(required)) {
      required = version;
    }
  }

  private static boolean isEmptyEdits(JsonNode edits) {
    for (String field : EDITS.keySet()) {
      JsonNode value = edits.path(field);
      if (field.equals("intelRdt") ? !value.isMissingNode() && !value.isNull() : !value.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  private void edits(JsonNode edits, String at) {
    if (edits.isMissingNode() || edits.isNull() || !schema(edits, EDITS, at)) {
      return;
    }
    env(edits.path("env"), at + ".env");
    int i = 0;
    for (JsonNode node : edits.path("deviceNodes")) {
      String here = at + ".deviceNodes[" + i++ + "]";
      if (!schema(node, DEVICE_NODE, here)) {
        continue;
      }
      String path = node.path("path").asString("");
      if (path.isEmpty()) {
        problems.add(here + ": empty device path");
      }
      absolute(here + ".path", path);
      if (!node.path("hostPath").asString("").isEmpty()) {
        require("0.5.0");
        absolute(here + ".hostPath", node.path("hostPath").asString());
      }
      String type = node.path("type").asString("");
      if (!List.of("", "b", "c", "u", "p").contains(type)) {
        problems.add(here + ": invalid type " + type);
      }
      String permissions = node.path("permissions").asString("");
      if (!permissions.equals("none") && !permissions.replaceAll("[rwm]", "").isEmpty()) {
        problems.add(here + ": invalid permissions " + permissions);
      }
    }
    i = 0;
    for (JsonNode hook : edits.path("hooks")) {
      String here = at + ".hooks[" + i++ + "]";
      if (!schema(hook, HOOK, here)) {
        continue;
      }
      if (!HOOK_NAMES.contains(hook.path("hookName").asString(""))) {
        problems.add(here + ": invalid hook name " + hook.path("hookName").asString(""));
      }
      if (hook.path("path").asString("").isEmpty()) {
        problems.add(here + ": empty path");
      }
      absolute(here + ".path", hook.path("path").asString(""));
      env(hook.path("env"), here + ".env");
    }
    i = 0;
    for (JsonNode mount : edits.path("mounts")) {
      String here = at + ".mounts[" + i++ + "]";
      if (!schema(mount, MOUNT, here)) {
        continue;
      }
      for (String path : List.of("hostPath", "containerPath")) {
        if (mount.path(path).asString("").isEmpty()) {
          problems.add(here + ": empty " + path);
        }
        absolute(here + "." + path, mount.path(path).asString(""));
      }
      if (!mount.path("type").asString("").isEmpty()) {
        require("0.4.0");
      }
    }
    JsonNode rdt = edits.path("intelRdt");
    if (!rdt.isMissingNode() && !rdt.isNull() && schema(rdt, INTEL_RDT, at + ".intelRdt")) {
      require(rdt.has("schemata") || rdt.path("enableMonitoring").asBoolean() ? "1.1.0" : "0.7.0");
    }
    if (!edits.path("additionalGids").isEmpty()) {
      require("0.7.0");
    }
    netDevices(edits.path("netDevices"), at + ".netDevices");
  }

  private void netDevices(JsonNode devices, String at) {
    var hosts = new HashSet<String>();
    var names = new HashSet<String>();
    int i = 0;
    for (JsonNode device : devices) {
      String here = at + "[" + i++ + "]";
      require("1.1.0");
      if (!schema(device, NET_DEVICE, here)) {
        continue;
      }
      String host = device.path("hostInterfaceName").asString("");
      String name = device.path("name").asString("");
      if (host.isEmpty() || name.isEmpty()) {
        problems.add(here + ": empty hostInterfaceName or name");
      }
      if (!hosts.add(host) || !names.add(name)) {
        problems.add(here + ": duplicate net device");
      }
    }
  }

  private void env(JsonNode env, String at) {
    for (JsonNode entry : env) {
      if (entry.asString().indexOf('=') <= 0) {
        problems.add(at + ": invalid environment variable " + entry.asString());
      }
    }
  }

  /** runc's rule, not CDI's: paths it mounts or creates are absolute. */
  private void absolute(String at, String path) {
    if (!path.isEmpty() && !path.startsWith("/")) {
      problems.add(at + ": " + path + " is not absolute");
    }
  }

  private void vendorOrClass(String what, String name) {
    if (!isLetter(name.charAt(0))) {
      problems.add(what + " " + name + ": should start with a letter");
    }
    inner(what, name, "_-.");
  }

  private void deviceName(String at, String name) {
    if (name.isEmpty()) {
      problems.add(at + ": empty device name");
      return;
    }
    if (!isAlphaNumeric(name.charAt(0))) {
      problems.add(at + ": device name " + name + " should start with a letter or digit");
    }
    if (isDigit(name.charAt(0))) {
      require("0.5.0");
    }
    inner(at + ": device name", name, "_-.:");
  }

  private void inner(String what, String name, String punctuation) {
    for (int i = 1; i < name.length() - 1; i++) {
      char c = name.charAt(i);
      if (!isAlphaNumeric(c) && punctuation.indexOf(c) < 0) {
        problems.add(what + " " + name + ": invalid character '" + c + "'");
      }
    }
    if (name.length() > 1 && !isAlphaNumeric(name.charAt(name.length() - 1))) {
      problems.add(what + " " + name + ": should end with a letter or digit");
    }
  }

  /** The object has only the schema's fields, each of its type; required strings are strings. */
  private boolean schema(JsonNode object, Map<String, Type> fields, String at) {
    if (!object.isObject()) {
      problems.add(at + ": not an object");
      return false;
    }
    boolean ok = true;
    for (var entry : object.properties()) {
      Type type = fields.get(entry.getKey());
      if (type == null) {
        problems.add(at + ": unknown field " + entry.getKey());
        ok = false;
      } else if (!entry.getValue().isNull() && !hasType(entry.getValue(), type)) {
        problems.add(at + "." + entry.getKey() + ": not " + type);
        ok = false;
      }
    }
    return ok;
  }

  private static boolean hasType(JsonNode value, Type type) {
    return switch (type) {
      case STRING -> value.isString();
      case STRINGS -> value.isArray() && all(value, JsonNode::isString);
      case STRING_MAP ->
          value.isObject() && value.properties().stream().allMatch(e -> e.getValue().isString());
      case INT -> value.isIntegralNumber() && value.canConvertToLong();
      case UINT32 -> isUint32(value);
      case UINT32S -> value.isArray() && all(value, CdiValidation::isUint32);
      case BOOL -> value.isBoolean();
      case OBJECT -> value.isObject();
      case OBJECTS -> value.isArray() && all(value, JsonNode::isObject);
    };
  }

  private static boolean isUint32(JsonNode value) {
    return value.isIntegralNumber()
        && value.canConvertToLong()
        && value.asLong() >= 0
        && value.asLong() <= 0xFFFF_FFFFL;
  }

  private static boolean all(JsonNode array, java.util.function.Predicate<JsonNode> test) {
    for (JsonNode element : array) {
      if (!test.test(element)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isLetter(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isAlphaNumeric(char c) {
    return isLetter(c) || isDigit(c);
  }
}
