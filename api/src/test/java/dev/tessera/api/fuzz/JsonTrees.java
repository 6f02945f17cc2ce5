package dev.tessera.api.fuzz;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * JSON trees for property tests, as a JSON library reads them: {@code Map<String, Object>}, {@code
 * List<Object>}, strings, numbers ({@code Integer}, {@code Long}, {@code BigInteger}, {@code
 * Double}, {@code BigDecimal}), booleans and null. Two sources: any tree ({@link #any}), and
 * mutations of a valid document ({@link #mutationOf}), which reach deeper into a decoder than
 * random trees do. Everything is drawn from the {@link Random} of a {@link Fuzz} try, so a failure
 * replays from its seed.
 */
public final class JsonTrees {
  private final List<String> words;

  /**
   * @param words strings the decoder under test knows (field names, allowed values): drawn often,
   *     so random trees hit its branches
   */
  public JsonTrees(List<String> words) {
    this.words = List.copyOf(words);
  }

  /** One of the valid documents with 1–4 random mutations (see {@link #mutate}). */
  public Object mutationOf(List<?> valid, Random random) {
    Object doc = copy(valid.get(random.nextInt(valid.size())));
    int mutations = 1 + random.nextInt(4);
    for (int i = 0; i < mutations; i++) {
      doc = mutate(doc, random);
    }
    return doc;
  }

  /** Any JSON value, up to {@code depth} containers deep. */
  public Object tree(Random random, int depth) {
    int pick = random.nextInt(depth <= 0 ? 6 : 8);
    return switch (pick) {
      case 0 -> null;
      case 1 -> random.nextBoolean();
      case 2, 3 -> string(random);
      case 4, 5 -> number(random);
      case 6 -> {
        var map = new LinkedHashMap<String, Object>();
        int size = random.nextInt(5);
        for (int i = 0; i < size; i++) {
          map.put(key(random), tree(random, depth - 1));
        }
        yield map;
      }
      default -> {
        var list = new ArrayList<Object>();
        int size = random.nextInt(4);
        for (int i = 0; i < size; i++) {
          list.add(tree(random, depth - 1));
        }
        yield list;
      }
    };
  }

  /**
   * One mutation somewhere in the document: a value replaced by any tree, by a value of another
   * type, by null, by a huge or negative number or an odd string; a field removed; an unknown field
   * added; an object wrapped in deep nesting.
   */
  public Object mutate(Object doc, Random random) {
    List<Object> containers = new ArrayList<>();
    collect(doc, containers);
    if (containers.isEmpty() || random.nextInt(20) == 0) {
      return replacement(random);
    }
    Object target = containers.get(random.nextInt(containers.size()));
    if (target instanceof Map<?, ?> raw) {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) raw;
      List<String> keys = new ArrayList<>(map.keySet());
      int op = random.nextInt(keys.isEmpty() ? 1 : 4);
      switch (op) {
        case 0 -> map.put(key(random), tree(random, 2));
        case 1 -> map.remove(keys.get(random.nextInt(keys.size())));
        case 2 -> map.put(keys.get(random.nextInt(keys.size())), replacement(random));
        default -> map.put(keys.get(random.nextInt(keys.size())), nested(1 + random.nextInt(200)));
      }
    } else if (target instanceof List<?> raw) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) raw;
      if (list.isEmpty() || random.nextBoolean()) {
        list.add(replacement(random));
      } else {
        list.set(random.nextInt(list.size()), replacement(random));
      }
    }
    return doc;
  }

  /** {@code depth} objects, each the only field of the one above: {"a":{"a":{...}}}. */
  public static Object nested(int depth) {
    Object value = "bottom";
    for (int i = 0; i < depth; i++) {
      value = new LinkedHashMap<>(Map.of("a", value));
    }
    return value;
  }

  /** A deep copy whose containers may be changed. */
  public static Object copy(Object value) {
    if (value instanceof Map<?, ?> map) {
      var copy = new LinkedHashMap<String, Object>();
      map.forEach((k, v) -> copy.put((String) k, copy(v)));
      return copy;
    }
    if (value instanceof List<?> list) {
      var copy = new ArrayList<Object>();
      list.forEach(v -> copy.add(copy(v)));
      return copy;
    }
    return value;
  }

  private Object replacement(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> null;
      case 1 -> number(random);
      case 2 -> string(random);
      case 3 -> random.nextBoolean() ? new ArrayList<>() : new ArrayList<>(List.of(string(random)));
      case 4 -> new LinkedHashMap<String, Object>();
      default -> tree(random, 3);
    };
  }

  private static void collect(Object value, List<Object> containers) {
    if (value instanceof Map<?, ?> map) {
      containers.add(map);
      map.values().forEach(v -> collect(v, containers));
    } else if (value instanceof List<?> list) {
      containers.add(list);
      list.forEach(v -> collect(v, containers));
    }
  }

  private String key(Random random) {
    return random.nextInt(3) == 0 ? string(random) : words.get(random.nextInt(words.size()));
  }

  /** Known words, quantities, unicode (surrogate pairs, lone surrogates, controls), long runs. */
  public String string(Random random) {
    return switch (random.nextInt(8)) {
      case 0, 1 -> words.get(random.nextInt(words.size()));
      case 2 -> quantity(random);
      case 3 -> "";
      case 4 -> {
        var s = new StringBuilder();
        int length = random.nextInt(20);
        for (int i = 0; i < length; i++) {
          s.append((char) random.nextInt(Character.MAX_VALUE + 1));
        }
        yield s.toString();
      }
      case 5 -> {
        String word = words.get(random.nextInt(words.size()));
        yield switch (random.nextInt(4)) {
          case 0 -> word.toUpperCase(java.util.Locale.ROOT);
          case 1 -> " " + word + "\t";
          case 2 -> word + "\u0000";
          default -> word + "\uD83D\uDE80";
        };
      }
      case 6 -> "9".repeat(1 + random.nextInt(5000)) + (random.nextBoolean() ? "x" : "Gi");
      default -> new String(Character.toChars(0x10000 + random.nextInt(0xFFFF))).repeat(3);
    };
  }

  /** Quantity-like text: signs, fractions, exponents (also far out of range), suffixes, junk. */
  public static String quantity(Random random) {
    String[] suffixes = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "m", "k", "M", "G", "T", "P", "E"};
    var s = new StringBuilder();
    if (random.nextInt(4) == 0) {
      s.append(random.nextBoolean() ? '-' : '+');
    }
    s.append(digits(random, 1 + random.nextInt(random.nextInt(10) == 0 ? 400 : 12)));
    if (random.nextInt(3) == 0) {
      s.append('.').append(digits(random, random.nextInt(6)));
    }
    switch (random.nextInt(5)) {
      case 0 -> {
        long[] exponents = {0, 3, 18, 19, -3, 400, -400, 999_999_999, -999_999_999};
        s.append(random.nextBoolean() ? 'e' : 'E');
        s.append(
            random.nextBoolean()
                ? exponents[random.nextInt(exponents.length)]
                : random.nextBoolean() ? random.nextInt() : random.nextLong());
      }
      case 1 -> s.append("e").append(Long.MIN_VALUE);
      default -> s.append(suffixes[random.nextInt(suffixes.length)]);
    }
    if (random.nextInt(10) == 0) {
      s.append(random.nextBoolean() ? "x" : " ");
    }
    return s.toString();
  }

  private static String digits(Random random, int count) {
    var s = new StringBuilder();
    for (int i = 0; i < count; i++) {
      s.append((char) ('0' + random.nextInt(10)));
    }
    return s.toString();
  }

  /** Numbers of every type a JSON library produces, at and beyond the edges of each. */
  public static Object number(Random random) {
    return switch (random.nextInt(10)) {
      case 0 -> random.nextInt(201) - 100;
      case 1 -> random.nextInt();
      case 2 -> random.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE;
      case 3 -> random.nextLong();
      case 4 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
      case 5 -> new BigInteger(1 + random.nextInt(1500), random).negate();
      case 6 -> new BigInteger(64 + random.nextInt(64), random);
      case 7 -> {
        double[] doubles = {
          0.5,
          -0.0,
          50.0,
          1e308,
          -1e308,
          Double.MIN_VALUE,
          Double.NaN,
          Double.POSITIVE_INFINITY,
          Double.NEGATIVE_INFINITY
        };
        yield doubles[random.nextInt(doubles.length)];
      }
      case 8 -> random.nextDouble() * 200 - 100;
      default ->
          new BigDecimal(new BigInteger(1 + random.nextInt(200), random), random.nextInt() / 4);
    };
  }
}
