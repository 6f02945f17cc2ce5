package dev.tessera.plugin.it;

import dev.tessera.api.kubelet.registration.v1.InfoRequest;
import dev.tessera.api.kubelet.registration.v1.PluginInfo;
import dev.tessera.api.kubelet.registration.v1.RegistrationGrpc;
import dev.tessera.api.kubelet.registration.v1.RegistrationStatus;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Plays the kubelet: dials the plugin's sockets as the kubelet's plugin manager does. */
public final class KubeletClient implements AutoCloseable {
  private final ManagedChannel registration;
  private final ManagedChannel dra;

  public KubeletClient(Path registrationSocket, Path draSocket) {
    this.registration = dial(registrationSocket);
    this.dra = dial(draSocket);
  }

  private static ManagedChannel dial(Path socket) {
    return Grpc.newChannelBuilder(
            "unix://" + socket.toAbsolutePath(), InsecureChannelCredentials.create())
        .build();
  }

  public PluginInfo getInfo() {
    return RegistrationGrpc.newBlockingStub(registration).getInfo(InfoRequest.getDefaultInstance());
  }

  public void notifyRegistration(boolean registered, String error) {
    RegistrationGrpc.newBlockingStub(registration)
        .notifyRegistrationStatus(
            RegistrationStatus.newBuilder()
                .setPluginRegistered(registered)
                .setError(error)
                .build());
  }

  public dev.tessera.api.kubelet.dra.v1.DRAPluginGrpc.DRAPluginBlockingStub v1() {
    return dev.tessera.api.kubelet.dra.v1.DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS);
  }

  public dev.tessera.api.kubelet.dra.v1beta1.DRAPluginGrpc.DRAPluginBlockingStub v1beta1() {
    return dev.tessera.api.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    registration.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    dra.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
