package dev.tessera.controller.publish;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import javax.net.SocketFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * An HTTP/1.1 server on loopback that answers the requests a test names with their status, headers
 * and the first bytes of a body, and then nothing more, the connection left open: as a proxy or API
 * server that stops mid-answer, or an HTTP/1.1 connection gone half-open midway, looks to a client.
 * fabric8's JDK client times a request out only until its headers come, so such an answer is waited
 * on for good. (fabric8's mock web server can delay an answer only as a whole, which the client's
 * request timeout ends.)
 *
 * <p>Every other request goes to the API server behind it ({@link #before}), if any, on a
 * connection of its own that closes after the answer (a watch's WebSocket is passed through both
 * ways until either side closes it); without one, every request stalls ({@link
 * #stallingEverything}). In front of a real API server ({@link #tlsBefore}) it ends TLS with a
 * certificate of its own, offering HTTP/1.1 only, and reaches the API server over TLS as the
 * kubeconfig it is given does.
 */
public final class StallingProxy implements AutoCloseable {
  private static final Predicate<String> NOTHING = line -> false;

  /** What RFC 6455 has a server hash the client's key with. */
  private static final String WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

  private final ServerSocket socket;
  private final URI upstream;
  private final SocketFactory upstreamSockets;
  private final LoopbackCertificate certificate;
  private final List<Socket> connections = new CopyOnWriteArrayList<>();
  private final List<String> requestLines = new CopyOnWriteArrayList<>();
  private final List<String> stalled = new CopyOnWriteArrayList<>();
  private final List<String> endedByClient = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile Predicate<String> stalls;
  private volatile Predicate<String> stallsAfterApplying = NOTHING;
  private volatile boolean closed;

  /** The watches passed to the API server and still open: {@link #endWatches} closes them. */
  private final List<Forwarded> watches = new CopyOnWriteArrayList<>();

  /** The watches ended by {@link #endWatches}: their API server side is closed with the proxy. */
  private final List<Forwarded> lingering = new CopyOnWriteArrayList<>();

  private volatile Predicate<String> watchesEnded = NOTHING;
  private volatile String watchEnd;
  private final List<String> endedWatches = new CopyOnWriteArrayList<>();

  /**
   * The event the API server ends a watch with once the resource version it watches from was
   * compacted away: the client lists again.
   */
  public static final String EXPIRED =
      """
      {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},\
      "status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired",\
      "code":410}}""";

  /**
   * A watch passed to the API server: its request line, both of its connections, and whether what
   * the API server sends it is dropped ({@link #silenceWatches}).
   */
  private record Forwarded(String requestLine, Socket client, Socket api, AtomicBoolean silenced) {}

  private StallingProxy(
      URI upstream,
      SocketFactory upstreamSockets,
      ServerSocket socket,
      LoopbackCertificate certificate,
      Predicate<String> stalls) {
    this.upstream = upstream;
    this.upstreamSockets = upstreamSockets;
    this.socket = socket;
    this.certificate = certificate;
    this.stalls = stalls;
    acceptor = Thread.ofPlatform().daemon().name("stalling-proxy").start(this::accept);
  }

  /** Stalls every request: an API server that answers nothing whole. */
  static StallingProxy stallingEverything() throws IOException {
    return new StallingProxy(null, null, loopback(), null, line -> true);
  }

  /**
   * Passes every request to the plain-HTTP API server at {@code url} until {@link #stall} names
   * some.
   */
  public static StallingProxy before(String url) throws IOException {
    return new StallingProxy(
        URI.create(url), SocketFactory.getDefault(), loopback(), null, NOTHING);
  }

  /**
   * Passes every request, over TLS, to the API server of {@code upstream} (with its CA and client
   * credentials) until {@link #stall} names some. Its own key and certificate, for 127.0.0.1, are
   * made by the JDK's keytool in {@code dir}.
   */
  public static StallingProxy tlsBefore(Config upstream, Path dir)
      throws IOException, GeneralSecurityException, InterruptedException {
    var certificate = LoopbackCertificate.make(dir, "stalling-proxy");
    SSLContext tls = certificate.serverContext();
    var server =
        (SSLServerSocket)
            tls.getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
    var parameters = server.getSSLParameters();
    parameters.setApplicationProtocols(new String[] {"http/1.1"});
    server.setSSLParameters(parameters);
    return new StallingProxy(
        URI.create(upstream.getMasterUrl()),
        SSLUtils.sslContext(upstream).getSocketFactory(),
        server,
        certificate,
        NOTHING);
  }

  private static ServerSocket loopback() throws IOException {
    return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  public String url() {
    return (certificate == null ? "http" : "https") + "://127.0.0.1:" + socket.getLocalPort();
  }

  /**
   * A client with {@code settings} but this proxy for its API server, carrying {@code interceptors}
   * (as the controller's clients carry theirs).
   */
  public KubernetesClient client(Config settings, Interceptor... interceptors) {
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(settings).withMasterUrl(url()).build())
        .withHttpClientBuilderConsumer(
            b -> {
              for (Interceptor interceptor : interceptors) {
                b.addOrReplaceInterceptor(interceptor.getClass().getName(), interceptor);
              }
            })
        .build();
  }

  /**
   * A kubeconfig in {@code dir} that reaches the API server through this TLS proxy, trusting its
   * certificate. It carries no credentials: the proxy gives the API server its own.
   */
  public Path writeKubeconfig(Path dir) throws IOException {
    return certificate.writeKubeconfig(dir, "stalling-proxy.kubeconfig", url());
  }

  /**
   * From now on, stalls the requests whose request line ({@code PUT /apis/... HTTP/1.1}) matches;
   * the others pass.
   */
  public void stall(Predicate<String> requestLine) {
    stalls = requestLine;
  }

  /**
   * From now on, passes the requests whose request line matches to the API server, which applies
   * them, and stalls their answers: the client gets the answer's status, headers and first byte,
   * then nothing — a write that landed whose answer was lost. They are counted in {@link #stalled}.
   */
  public void stallAfterApplying(Predicate<String> requestLine) {
    stallsAfterApplying = requestLine;
  }

  /**
   * Ends the watches whose request line ({@code GET /api/...?...watch=true HTTP/1.1}) matches:
   * closes those under way, and answers those asked for from now on itself, with {@code event} (one
   * WebSocket text frame, or one line of a plain watch's body) and nothing more. With {@link
   * #EXPIRED} the client takes its watch's resource version as too old, as when the API server
   * compacted it away, and lists again.
   */
  public void endWatches(Predicate<String> requestLine, String event) {
    watchEnd = event;
    watchesEnded = requestLine;
    for (Forwarded watch : watches) {
      if (requestLine.test(watch.requestLine())) {
        // The client's side only; the API server's stays open until the proxy closes (see
        // forward).
        lingering.add(watch);
        closeQuietly(watch.client());
      }
    }
  }

  /**
   * Silences the watches under way whose request line matches: from now on what the API server
   * sends them is read and dropped, and both connections stay open — a watch as its client sees one
   * that stalled in the API server (its watch cache) or behind a proxy that stopped passing it:
   * open, and nothing comes. Watches asked for after pass as before. Returns how many it silenced.
   */
  public int silenceWatches(Predicate<String> requestLine) {
    int silenced = 0;
    for (Forwarded watch : watches) {
      if (requestLine.test(watch.requestLine()) && !watch.silenced().getAndSet(true)) {
        silenced++;
      }
    }
    return silenced;
  }

  /** The request lines of the watches answered by {@link #endWatches}, in the order they came. */
  public List<String> endedWatches() {
    return endedWatches;
  }

  /** The request line of every request, in the order they came ({@code GET /apis/... HTTP/1.1}). */
  public List<String> requestLines() {
    return requestLines;
  }

  /** The request lines of the requests stalled, in the order they came. */
  public List<String> stalled() {
    return stalled;
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        connections.add(connection);
        Thread.ofPlatform().daemon().name("stalling-proxy-answer").start(() -> answer(connection));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void answer(Socket connection) {
    try {
      InputStream in = connection.getInputStream();
      List<String> head = readHead(in);
      if (head.isEmpty()) {
        connection.close();
        return;
      }
      String requestLine = head.getFirst();
      requestLines.add(requestLine);
      if (stalls.test(requestLine)) {
        stalled.add(requestLine);
        stallAnswer(connection.getOutputStream());
        awaitClientEnd(in, requestLine);
      } else if (stallsAfterApplying.test(requestLine) && !isWebSocket(head)) {
        applyThenStall(head, in, connection);
        stalled.add(requestLine);
        awaitClientEnd(in, requestLine);
      } else if (isWatch(head) && watchesEnded.test(requestLine)) {
        endedWatches.add(requestLine);
        try (connection) {
          if (isWebSocket(head)) {
            endWatch(head, connection.getOutputStream(), watchEnd);
            awaitClose(in, connection.getOutputStream());
          } else {
            endHttpWatch(connection.getOutputStream(), watchEnd);
            in.transferTo(OutputStream.nullOutputStream()); // until the client closes
          }
        }
      } else {
        forward(head, in, connection);
      }
    } catch (IOException e) {
      // The client or the API server went; nothing to answer.
    }
  }

  /**
   * The request lines of the stalled answers whose client closed their connection (it gave up
   * waiting), in the order they were closed; the proxy's own close is not counted.
   */
  public List<String> endedByClient() {
    return endedByClient;
  }

  /** Reads a stalled answer's connection until its client closes it (it sends nothing more). */
  private void awaitClientEnd(InputStream in, String requestLine) {
    try {
      in.transferTo(OutputStream.nullOutputStream()); // it sends nothing before
    } catch (IOException e) {
      // reset by the client, or closed by the proxy's close: told apart below
    }
    if (!closed) {
      endedByClient.add(requestLine);
    }
  }

  /**
   * Passes the request and its body to the API server and waits for its answer, then gives the
   * client the answer's head and first byte only.
   */
  private void applyThenStall(List<String> head, InputStream in, Socket connection)
      throws IOException {
    String length = header(head, "content-length");
    byte[] body = in.readNBytes(length.isEmpty() ? 0 : Integer.parseInt(length));
    try (Socket api = connectUpstream()) {
      OutputStream toApi = api.getOutputStream();
      toApi.write(requestHead(head).getBytes(StandardCharsets.ISO_8859_1));
      toApi.write(body);
      toApi.flush();
      InputStream fromApi = api.getInputStream();
      List<String> answer = readHead(fromApi);
      OutputStream toClient = connection.getOutputStream();
      toClient.write(answerHead(answer).getBytes(StandardCharsets.ISO_8859_1));
      toClient.write(fromApi.readNBytes(1));
      toClient.flush();
    }
  }

  /** Status, headers and the first bytes of a body, then nothing: the connection stays open. */
  private static void stallAnswer(OutputStream out) throws IOException {
    out.write(
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                + "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /**
   * Takes the WebSocket's upgrade as the API server would, then sends {@code event} in one text
   * frame (unmasked, as from a server) and nothing more: the client ends the watch.
   */
  private static void endWatch(List<String> head, OutputStream out, String event)
      throws IOException {
    String accept;
    try {
      accept =
          Base64.getEncoder()
              .encodeToString(
                  MessageDigest.getInstance("SHA-1")
                      .digest(
                          (header(head, "sec-websocket-key") + WEBSOCKET_GUID)
                              .getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    out.write(
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: "
                + accept
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    byte[] payload = event.getBytes(StandardCharsets.UTF_8);
    if (payload.length > 0xFFFF) {
      throw new IllegalArgumentException("an event of more than 64 KiB");
    }
    out.write(0x81); // the last frame of a text message
    if (payload.length < 126) {
      out.write(payload.length);
    } else {
      out.write(126);
      out.write(payload.length >> 8);
      out.write(payload.length & 0xFF);
    }
    out.write(payload);
    out.flush();
  }

  /**
   * Reads the client's frames until its Close, answers it with a Close as a server does (RFC 6455,
   * 5.5.1), and returns; the caller closes the connection.
   */
  private static void awaitClose(InputStream in, OutputStream out) throws IOException {
    while (true) {
      int first = in.read();
      int second = in.read();
      if (first < 0 || second < 0) {
        return;
      }
      long length = second & 0x7F;
      if (length == 126) {
        length = (in.read() << 8) | in.read();
      } else if (length == 127) {
        length = 0;
        for (int i = 0; i < 8; i++) {
          length = (length << 8) | in.read();
        }
      }
      // A client's frames are masked: four bytes of key before the payload.
      in.skipNBytes(((second & 0x80) != 0 ? 4 : 0) + length);
      if ((first & 0x0F) == 0x8) {
        out.write(new byte[] {(byte) 0x88, 0});
        out.flush();
        return;
      }
    }
  }

  /**
   * A watch: a WebSocket, or a plain GET whose answer streams the events (fabric8 falls back to one
   * when a WebSocket's handshake fails, a connection closed midway included).
   */
  private static boolean isWatch(List<String> head) {
    return isWebSocket(head) || head.getFirst().contains("watch=true");
  }

  /** Answers a plain watch with {@code event} (one line of its chunked body) and nothing more. */
  private static void endHttpWatch(OutputStream out, String event) throws IOException {
    byte[] line = (event + "\n").getBytes(StandardCharsets.UTF_8);
    out.write(
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(line.length)
                + "\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(line);
    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static boolean isWebSocket(List<String> head) {
    return header(head, "upgrade").equalsIgnoreCase("websocket");
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Closed already.
    }
  }

  /**
   * The request to the API server on a connection of its own, and its answer back, each told to
   * close the connection after it (the client then asks its next request on a new one, which this
   * reads again); a WebSocket's upgrade keeps both open and passes its frames both ways.
   */
  private void forward(List<String> head, InputStream in, Socket connection) throws IOException {
    Socket api;
    try {
      api = connectUpstream();
    } catch (IOException e) {
      closeQuietly(connection);
      throw e;
    }
    var watch = new Forwarded(head.getFirst(), connection, api, new AtomicBoolean());
    try (connection) {
      connections.add(api);
      if (closed) {
        return; // closed while this connected: the close did not see this connection
      }
      if (isWatch(head)) {
        watches.add(watch);
        if (watchesEnded.test(watch.requestLine())) {
          return; // ended while this connected: endWatches did not see this watch
        }
      }
      exchange(head, in, connection, api, watch.silenced());
    } finally {
      watches.remove(watch);
      // fabric8's mock API server, told that a watch's connection closed, waits on its event
      // loop for the watch's sender, which may be waiting on that event loop to write an event:
      // both stall for 30 s, and the mock cannot be closed. A watch ended while the code under
      // test writes (and so sends events) keeps its API server side open until the proxy closes,
      // after the test, when nothing writes.
      if (!lingering.contains(watch)) {
        closeQuietly(api);
      }
    }
  }

  /** The request to the API server, the rest of the client's bytes after it, the answer back. */
  private static void exchange(
      List<String> head, InputStream in, Socket connection, Socket api, AtomicBoolean silenced)
      throws IOException {
    OutputStream toApi = api.getOutputStream();
    toApi.write(requestHead(head).getBytes(StandardCharsets.ISO_8859_1));
    toApi.flush();
    Thread.ofPlatform()
        .daemon()
        .name("stalling-proxy-up")
        .start(() -> pass(in, toApi, new AtomicBoolean()));
    InputStream fromApi = api.getInputStream();
    List<String> answer = readHead(fromApi);
    OutputStream toClient = connection.getOutputStream();
    toClient.write(answerHead(answer).getBytes(StandardCharsets.ISO_8859_1));
    toClient.flush();
    pass(fromApi, toClient, silenced);
  }

  /**
   * The request's head as the API server gets it: a WebSocket's upgrade as it is; otherwise no
   * upgrade to HTTP/2 (the JDK client offers one over plain HTTP) and the connection closed after.
   */
  private static String requestHead(List<String> head) {
    if (isWebSocket(head)) {
      return String.join("\r\n", head) + "\r\n\r\n";
    }
    var lines = new ArrayList<String>();
    for (String line : head) {
      String name = line.contains(":") ? line.substring(0, line.indexOf(':')).trim() : "";
      if (!List.of("connection", "upgrade", "http2-settings", "keep-alive")
          .contains(name.toLowerCase(Locale.ROOT))) {
        lines.add(line);
      }
    }
    lines.add("Connection: close");
    return String.join("\r\n", lines) + "\r\n\r\n";
  }

  /** The answer's head as the client gets it: told to close the connection after it. */
  private static String answerHead(List<String> head) {
    if (head.isEmpty() || head.getFirst().contains(" 101 ")) {
      return String.join("\r\n", head) + "\r\n\r\n";
    }
    var lines = new ArrayList<String>();
    for (String line : head) {
      if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")
          && !line.toLowerCase(Locale.ROOT).startsWith("keep-alive:")) {
        lines.add(line);
      }
    }
    lines.add("Connection: close");
    return String.join("\r\n", lines) + "\r\n\r\n";
  }

  private static String header(List<String> head, String name) {
    return head.stream()
        .skip(1)
        .filter(l -> l.toLowerCase(Locale.ROOT).startsWith(name + ":"))
        .map(l -> l.substring(l.indexOf(':') + 1).trim())
        .findFirst()
        .orElse("");
  }

  /** A connection of its own to the API server behind the proxy. */
  private Socket connectUpstream() throws IOException {
    if (upstream == null) {
      throw new IOException("nothing behind this proxy");
    }
    return upstreamSockets.createSocket(
        upstream.getHost(), upstream.getPort() == -1 ? 443 : upstream.getPort());
  }

  /** Copies until either side closes; drops what it reads while {@code silenced}. */
  private static void pass(InputStream from, OutputStream to, AtomicBoolean silenced) {
    byte[] buffer = new byte[16384];
    try {
      for (int n = from.read(buffer); n >= 0; n = from.read(buffer)) {
        if (!silenced.get()) {
          to.write(buffer, 0, n);
          to.flush();
        }
      }
    } catch (IOException e) {
      // One side closed.
    }
  }

  /** Reads a head up to its blank line, byte by byte (nothing of the body); its lines, or none. */
  private static List<String> readHead(InputStream in) throws IOException {
    var head = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      head.append((char) c);
      if (head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4) {
        break;
      }
    }
    if (head.isEmpty()) {
      return List.of();
    }
    return List.of(head.toString().strip().split("\r\n"));
  }

  @Override
  public void close() throws IOException {
    closed = true;
    socket.close();
    for (Socket connection : connections) {
      connection.close();
    }
    acceptor.interrupt();
  }
}
