package dev.tessera.controller.publish;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * fabric8's mock web server answering every request as a test says (as a real API server answers
 * what the CRUD mock does not serve, such as {@code as=PartialObjectMetadata}), the requests kept
 * in the order they came.
 */
final class RecordingApiServer implements AutoCloseable {
  private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
  private final KubernetesMockServer server;

  RecordingApiServer(Function<RecordedRequest, MockResponse> answer) {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new Dispatcher() {
              @Override
              public MockResponse dispatch(RecordedRequest request) {
                requests.add(request);
                return answer.apply(request);
              }
            },
            false);
    server.init();
  }

  KubernetesClient createClient() {
    return server.createClient();
  }

  List<RecordedRequest> requests() {
    return requests;
  }

  @Override
  public void close() {
    server.destroy();
  }
}
