package dev.tessera.controller.publish;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Clock;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The caches' lists not yet ended, by what each lists: every informer's first list, and each list
 * after it. fabric8 lists again when a watch ends on an expired resource version (a 410 from the
 * API server) or cannot go on; until that list ends the cache is not watched and stays as it was,
 * and an answer that stalls after its headers ends it never (fabric8's JDK client has no timeout
 * there, and the informer no retry for a list that has not failed).
 */
final class ListsUnderWay {
  private final Clock clock;
  private final Map<String, ListUnderWay> lists = new ConcurrentHashMap<>();

  ListsUnderWay(Clock clock) {
    this.clock = clock;
  }

  /**
   * A list of {@code resource} is asked for now, unless one is under way already: a list counts
   * from its first ask (fabric8 retries a failed list within the same list, until it ends). Returns
   * the list under way.
   */
  ListUnderWay begun(String resource) {
    return lists.computeIfAbsent(resource, r -> new ListUnderWay(r, clock.instant()));
  }

  /** The list of {@code resource} under way has ended: the cache holds what it listed. */
  void ended(String resource) {
    lists.remove(resource);
  }

  /**
   * {@code list} has ended, if it is still the one under way: the informer's handler may have told
   * of its end, and of the next list's beginning, before its starter hears of it.
   */
  void ended(ListUnderWay list) {
    lists.remove(list.resource(), list);
  }

  /** The list under way that was asked for first, if one is. */
  Optional<ListUnderWay> oldest() {
    return lists.values().stream().min(Comparator.comparing(ListUnderWay::since));
  }

  /**
   * Tells this of the lists {@code resource}'s informer begins and ends. fabric8 tells its handlers
   * on the informer's event thread, after the events before: the time is when the handler hears of
   * it, at worst later than the ask.
   */
  ResourceEventHandler<Object> of(String resource) {
    return new ResourceEventHandler<>() {
      @Override
      public void onBeforeList(String lastSyncResourceVersion) {
        begun(resource);
      }

      @Override
      public void onList(String resourceVersion, boolean remainedEmpty) {
        ended(resource);
      }

      @Override
      public void onAdd(Object obj) {}

      @Override
      public void onUpdate(Object before, Object after) {}

      @Override
      public void onDelete(Object obj, boolean unknownFinalState) {}
    };
  }
}
