package dev.tessera.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node plugin's {@code /prometheus}, as the E2E reads it. The E2E tier runs the plugin with
 * {@code TESSERA_METRICS_PORT=-1} (hack/cluster/install-tessera: the local cluster's pods share the
 * node's host network, and a rolling upgrade's surge runs two plugin pods there, which a fixed port
 * would make collide), so the port is the one each plugin announces in its log ({@code serving
 * metrics port=<n>}): a pod's own log names its own port, also while two run side by side.
 */
final class PluginMetrics {
  private static final Pattern ANNOUNCED = Pattern.compile("serving metrics .*port=\"?(\\d+)");

  private PluginMetrics() {}

  /** The port the plugin whose log this is serves its metrics on (its latest start's). */
  static int port(String log) {
    Matcher m = ANNOUNCED.matcher(log);
    int port = -1;
    while (m.find()) {
      port = Integer.parseInt(m.group(1));
    }
    if (port < 0) {
      throw new IllegalStateException("the plugin's log does not say where it serves metrics yet");
    }
    return port;
  }

  static String get(String host, int port) throws IOException, InterruptedException {
    var url = URI.create("http://" + host + ":" + port + "/prometheus");
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(HttpRequest.newBuilder(url).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }

  /** The lines of {@code metric} (with labels) that contain every one of {@code labels}. */
  static List<String> series(String text, String metric, String... labels) {
    return Arrays.stream(text.split("\n"))
        .filter(line -> line.startsWith(metric + "{"))
        .filter(line -> Arrays.stream(labels).allMatch(line::contains))
        .toList();
  }

  /** A series line's value. */
  static double value(String line) {
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  /** A label's value in a series line. */
  static String label(String line, String name) {
    Matcher m = Pattern.compile("[{,]" + name + "=\"([^\"]*)\"").matcher(line);
    if (!m.find()) {
      throw new IllegalArgumentException(line + " has no label " + name);
    }
    return m.group(1);
  }
}
