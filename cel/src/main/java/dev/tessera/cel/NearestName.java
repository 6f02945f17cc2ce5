package dev.tessera.cel;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * The valid name a mistyped one was most likely meant to be: the fewest edits away (insert, delete,
 * replace, or swap two neighbours: {@code prodcutName} is one edit from {@code productName}), ties
 * to the first in alphabetical order, and only when the edits are few against the length.
 */
public final class NearestName {
  private NearestName() {}

  public static Optional<String> of(String typed, Collection<String> valid) {
    int limit = Math.max(2, typed.length() / 3);
    return valid.stream()
        .filter(name -> distance(typed, name) <= limit)
        .min(
            Comparator.comparingInt((String name) -> distance(typed, name))
                .thenComparing(Comparator.naturalOrder()));
  }

  /** The optimal string alignment distance (Damerau–Levenshtein without repeated edits). */
  public static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
