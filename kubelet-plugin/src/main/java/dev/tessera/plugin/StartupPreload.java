package dev.tessera.plugin;

import com.sun.jna.Native;
import dev.tessera.api.kubelet.dra.v1.DRAPluginGrpc;
import dev.tessera.api.kubelet.drahealth.v1alpha1.DRAResourceHealthGrpc;
import dev.tessera.api.kubelet.registration.v1.RegistrationGrpc;
import io.grpc.netty.NettyServerBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.epoll.Epoll;
import tools.jackson.databind.json.JsonMapper;

/**
 * Loads and initializes, on a second core, what the start-up's main thread needs later, while that
 * thread reads the configuration and builds the beans (Spring Boot's background pre-initializer
 * does the same). A wall-clock profile of the start put a quarter of the main thread's 1.4 s before
 * the registration socket into these: netty's epoll transport (its native library is unpacked from
 * the jar), gRPC's server and the kubelet services' protobuf descriptors, JNA's native dispatch,
 * Jackson's mapper and Prometheus' registry. Only classes are touched: nothing is started, opened
 * or kept, so a preload that fails (or is slower than the main thread) costs time, never behaviour.
 */
final class StartupPreload {
  private StartupPreload() {}

  static void start() {
    Thread.ofPlatform().daemon().name("startup-preload").start(StartupPreload::run);
  }

  private static void run() {
    try {
      Epoll.isAvailable();
      initialize(NettyServerBuilder.class);
      DRAPluginGrpc.getServiceDescriptor();
      dev.tessera.api.kubelet.dra.v1beta1.DRAPluginGrpc.getServiceDescriptor();
      RegistrationGrpc.getServiceDescriptor();
      DRAResourceHealthGrpc.getServiceDescriptor();
      initialize(Native.class);
      JsonMapper.builder().build();
      initialize(PrometheusMeterRegistry.class);
    } catch (Throwable e) {
      // Nothing to do: the main thread loads the same classes itself, and reports what fails.
    }
  }

  private static void initialize(Class<?> type) throws ClassNotFoundException {
    Class.forName(type.getName(), true, type.getClassLoader());
  }
}
