package dev.tessera.controller.publish;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An HTTP/1.1 server on loopback that answers every request with its status, headers and the first
 * bytes of a body, and then nothing more, the connection left open: as a proxy or API server that
 * stops mid-answer, or an HTTP/1.1 connection gone half-open midway, looks to a client. (fabric8's
 * mock web server can delay an answer only as a whole, which the client's request timeout ends.)
 */
final class StallingApiServer implements AutoCloseable {
  private final ServerSocket socket;
  private final List<Socket> connections = new CopyOnWriteArrayList<>();
  private final List<String> requestLines = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  StallingApiServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = Thread.ofPlatform().daemon().name("stalling-api-server").start(this::accept);
  }

  String url() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  /** The request line of every request, in the order they came ({@code GET /apis/... HTTP/1.1}). */
  List<String> requestLines() {
    return requestLines;
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        connections.add(connection);
        Thread.ofPlatform().daemon().name("stalling-answer").start(() -> answer(connection));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void answer(Socket connection) {
    try {
      InputStream in = connection.getInputStream();
      requestLines.add(readHead(in));
      connection
          .getOutputStream()
          .write(
              ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                      + "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[")
                  .getBytes(StandardCharsets.US_ASCII));
      connection.getOutputStream().flush();
    } catch (IOException e) {
      // The client went; nothing to answer.
    }
  }

  /** Reads a request's head up to its blank line; returns its first line. */
  private static String readHead(InputStream in) throws IOException {
    var head = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      head.append((char) c);
      if (head.toString().endsWith("\r\n\r\n")) {
        break;
      }
    }
    int end = head.indexOf("\r\n");
    return end < 0 ? head.toString() : head.substring(0, end);
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket connection : connections) {
      connection.close();
    }
    acceptor.interrupt();
  }
}
