package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ListsUnderWayTest {
  private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");
  private final TestClock clock = new TestClock(T0);
  private final ListsUnderWay lists = new ListsUnderWay(clock);

  @Test
  void noListUnderWayBeforeAnyIsAskedForOrOnceAllHaveEnded() {
    assertThat(lists.oldest()).isEmpty();

    lists.begun("gpunodes");
    lists.ended("gpunodes");

    assertThat(lists.oldest()).isEmpty();
  }

  @Test
  void theOldestListUnderWayIsTheOneAskedForFirst() {
    lists.begun("nodes");
    clock.advance(Duration.ofSeconds(3));
    lists.begun("gpunodes");

    assertThat(lists.oldest()).contains(new ListUnderWay("nodes", T0));

    lists.ended("nodes");

    assertThat(lists.oldest()).contains(new ListUnderWay("gpunodes", T0.plusSeconds(3)));
  }

  @Test
  void aListCountsFromItsFirstAskHoweverOftenItIsToldAgain() {
    lists.begun("gpunodes");
    clock.advance(Duration.ofMinutes(2));
    lists.begun("gpunodes"); // fabric8's handler told of the list the start already counted

    assertThat(lists.oldest()).contains(new ListUnderWay("gpunodes", T0));
  }

  @Test
  void theInformersHandlerTellsWhenEachListBeginsAndEnds() {
    var handler = lists.of("slices");

    handler.onBeforeList("41");
    clock.advance(Duration.ofSeconds(1));

    assertThat(lists.oldest()).contains(new ListUnderWay("slices", T0));

    handler.onAdd(new Object());
    handler.onList("42", false);

    assertThat(lists.oldest()).isEmpty();
  }

  @Test
  void theFirstListsEndLeavesTheNextListUnderWay() {
    var handler = lists.of("gpunodes");
    ListUnderWay first = lists.begun("gpunodes");
    // The informer's thread tells the first list's end and the next list's beginning (its watch
    // ended at once on an expired version) before the thread that started it hears of the end.
    handler.onList("41", false);
    clock.advance(Duration.ofSeconds(1));
    handler.onBeforeList("41");

    lists.ended(first);

    assertThat(lists.oldest()).contains(new ListUnderWay("gpunodes", T0.plusSeconds(1)));
  }
}
