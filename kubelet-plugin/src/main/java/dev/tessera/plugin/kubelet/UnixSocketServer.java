package dev.tessera.plugin.kubelet;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC server on a Unix domain socket, as the kubelet dials its plugins. Uses netty's epoll
 * transport where the native library loads, else the JDK's own Unix sockets.
 */
public final class UnixSocketServer implements AutoCloseable {
  private final Path socket;
  private final Server server;
  private final EventLoopGroup group;

  private UnixSocketServer(Path socket, Server server, EventLoopGroup group) {
    this.socket = socket;
    this.server = server;
    this.group = group;
  }

  /**
   * Starts serving, then puts the socket at its name (replacing a stale one an earlier process
   * left). The socket file appears at bind, before the server listens: a kubelet that dials it in
   * between is refused and retries only on its next reconcile. So it is bound under a hidden name,
   * which the kubelet's plugin watcher ignores, and renamed once it listens.
   */
  public static UnixSocketServer start(Path socket, List<BindableService> services)
      throws IOException {
    Files.createDirectories(socket.toAbsolutePath().getParent());
    // One character more than the name: a socket's path has room for 107 bytes only.
    Path bound = socket.resolveSibling("." + socket.getFileName());
    Files.deleteIfExists(bound);
    NettyServerBuilder builder;
    EventLoopGroup group;
    if (Epoll.isAvailable()) {
      group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
      builder =
          NettyServerBuilder.forAddress(new DomainSocketAddress(bound.toString()))
              .channelType(EpollServerDomainSocketChannel.class);
    } else {
      group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
      builder =
          NettyServerBuilder.forAddress(UnixDomainSocketAddress.of(bound))
              .channelType(NioServerDomainSocketChannel.class);
    }
    builder.bossEventLoopGroup(group).workerEventLoopGroup(group);
    services.forEach(builder::addService);
    Server server;
    try {
      server = builder.build().start();
    } catch (IOException | RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
    var started = new UnixSocketServer(socket, server, group);
    try {
      Files.move(
          bound, socket, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      started.close();
      Files.deleteIfExists(bound);
      throw e;
    }
    return started;
  }

  public Path socket() {
    return socket;
  }

  /** Stops serving and removes the socket, which tells the kubelet the plugin is gone. */
  @Override
  public void close() throws IOException {
    try {
      server.shutdown();
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    } finally {
      // Waited for: an event loop still in epoll_wait when the JVM exits holds the exit up to
      // 300 ms (HotSpot waits for threads in native code).
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(1, TimeUnit.SECONDS);
      Files.deleteIfExists(socket);
    }
  }
}
