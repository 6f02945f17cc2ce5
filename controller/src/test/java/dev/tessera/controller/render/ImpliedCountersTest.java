package dev.tessera.controller.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ImpliedCountersTest {
  private final ImpliedCounters implied = new ImpliedCounters();

  /** Two slots; a placement on each slot and one on both. */
  private static Map<String, Long> totals(long memory, long ofa) {
    var totals = new LinkedHashMap<String, Long>();
    totals.put("slice-0", 1L);
    totals.put("slice-1", 1L);
    totals.put("memory", memory);
    totals.put("ofa", ofa);
    return totals;
  }

  private static final List<Map<String, Long>> PLACEMENTS =
      List.of(
          Map.of("slice-0", 1L, "memory", 5L, "ofa", 1L),
          Map.of("slice-1", 1L, "memory", 5L, "ofa", 1L),
          Map.of("slice-0", 1L, "slice-1", 1L, "memory", 8L));

  private static final Set<String> SLICES = Set.of("slice-0", "slice-1");

  @Test
  void aCounterNoSetOfNonOverlappingPlacementsCanOverdrawIsNotPublished() {
    assertThat(implied.needed(totals(10, 2), PLACEMENTS, SLICES))
        .containsExactly("slice-0", "slice-1");
  }

  @Test
  void aCounterTwoNonOverlappingPlacementsWouldOverdrawIsPublished() {
    // One OFA engine: the two halves do not fit together, though their slices and memory would.
    assertThat(implied.needed(totals(10, 1), PLACEMENTS, SLICES))
        .containsExactly("slice-0", "slice-1", "ofa");
    // Memory 9 (5 + 5 does not fit): memory keeps the halves apart, so two OFAs never meet.
    assertThat(implied.needed(totals(9, 2), PLACEMENTS, SLICES))
        .containsExactly("slice-0", "slice-1", "memory");
  }

  @Test
  void aCounterBoundedByAnotherKeptCounterIsDroppedAndTheOtherKept() {
    // The halves take 1 OFA and 1 JPEG each, the GPU has one of each: either counter keeps them
    // apart, so the first examined goes and the second stays.
    var totals = totals(10, 1);
    totals.put("jpeg", 1L);
    var placements =
        List.of(
            Map.of("slice-0", 1L, "memory", 5L, "ofa", 1L, "jpeg", 1L),
            Map.of("slice-1", 1L, "memory", 5L, "ofa", 1L, "jpeg", 1L));
    assertThat(implied.needed(totals, placements, SLICES))
        .containsExactly("slice-0", "slice-1", "jpeg");
  }

  @Test
  void alwaysKeptCountersStayEvenWhenImplied() {
    assertThat(implied.needed(totals(10, 2), PLACEMENTS, Set.of("slice-0", "slice-1", "memory")))
        .containsExactly("slice-0", "slice-1", "memory");
  }

  @Test
  void aSearchPastItsBudgetKeepsTheCounter() {
    var small = new ImpliedCounters(2);
    assertThat(small.needed(totals(10, 2), PLACEMENTS, SLICES))
        .containsExactly("slice-0", "slice-1", "memory", "ofa");
  }
}
