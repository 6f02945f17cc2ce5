package dev.tessera.cel;

import static dev.tessera.cel.DraCelEnvironment.Functions.id;
import static dev.tessera.cel.DraCelEnvironment.QUANTITY;
import static dev.tessera.cel.DraCelEnvironment.SEMVER;

import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelFunctionBinding;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The run-time side of {@link DraCelEnvironment}'s {@code quantity} and {@code semver} libraries:
 * one binding per declared overload, by the same id, over {@link Quantity} and {@link Semver}.
 */
final class KubernetesLibraries {
  private static final CelType S = SimpleType.STRING;
  private static final CelType B = SimpleType.BOOL;
  private static final CelType I = SimpleType.INT;

  private KubernetesLibraries() {}

  static List<CelFunctionBinding> bindings() {
    var q = QUANTITY;
    var v = SEMVER;
    var b = new ArrayList<CelFunctionBinding>();
    b.add(CelFunctionBinding.from(id("quantity", S), String.class, Quantity::parse));
    b.add(CelFunctionBinding.from(id("isQuantity", S), String.class, Quantity::isQuantity));
    b.add(CelFunctionBinding.from(id("sign", q), Quantity.class, x -> (long) x.value().signum()));
    b.add(
        CelFunctionBinding.from(
            id("isInteger", q), Quantity.class, x -> isLong(x.value().stripTrailingZeros())));
    b.add(
        CelFunctionBinding.from(
            id("asInteger", q), Quantity.class, x -> x.value().longValueExact()));
    b.add(
        CelFunctionBinding.from(
            id("asApproximateFloat", q), Quantity.class, x -> x.value().doubleValue()));
    b.add(CelFunctionBinding.from(id("add", q, q), Quantity.class, Quantity.class, Quantity::add));
    b.add(
        CelFunctionBinding.from(
            id("add", q, I), Quantity.class, Long.class, (x, y) -> x.add(Quantity.of(y))));
    b.add(
        CelFunctionBinding.from(
            id("sub", q, q), Quantity.class, Quantity.class, Quantity::subtract));
    b.add(
        CelFunctionBinding.from(
            id("sub", q, I), Quantity.class, Long.class, (x, y) -> x.subtract(Quantity.of(y))));
    b.add(CelFunctionBinding.from(id("semver", S), String.class, Semver::parse));
    b.add(
        CelFunctionBinding.from(
            id("semver", S, B), String.class, Boolean.class, (x, n) -> Semver.parse(x, n)));
    b.add(CelFunctionBinding.from(id("isSemver", S), String.class, x -> Semver.isSemver(x, false)));
    b.add(
        CelFunctionBinding.from(
            id("isSemver", S, B), String.class, Boolean.class, Semver::isSemver));
    b.add(CelFunctionBinding.from(id("major", v), Semver.class, Semver::major));
    b.add(CelFunctionBinding.from(id("minor", v), Semver.class, Semver::minor));
    b.add(CelFunctionBinding.from(id("patch", v), Semver.class, Semver::patch));
    comparisons(b, q, Quantity.class);
    comparisons(b, v, Semver.class);
    return b;
  }

  private static <T extends Comparable<T>> void comparisons(
      List<CelFunctionBinding> b, CelType t, Class<T> type) {
    b.add(
        CelFunctionBinding.from(
            id("isGreaterThan", t, t), type, type, (x, y) -> x.compareTo(y) > 0));
    b.add(
        CelFunctionBinding.from(id("isLessThan", t, t), type, type, (x, y) -> x.compareTo(y) < 0));
    b.add(
        CelFunctionBinding.from(
            id("compareTo", t, t), type, type, (x, y) -> (long) Integer.signum(x.compareTo(y))));
  }

  private static boolean isLong(BigDecimal value) {
    try {
      value.longValueExact();
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }
}
