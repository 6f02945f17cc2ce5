package dev.tessera.demo.report;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.MethodDescriptor;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/**
 * Which scenario a test shows ({@link Scenario} on the method, else on its class), and the E2E
 * tier's order from it: classes by the first scenario they show, methods by theirs; tests that show
 * none after, in the order they came. Scenario names sort by their number. The demo report prints
 * in scenario order whatever the order of execution; this order lets it print each scenario as soon
 * as it has run, without waiting for a later class.
 */
public final class ScenarioOrder {
  private ScenarioOrder() {}

  /** The scenario {@code method} of {@code testClass} is the demo of, if any. */
  public static Optional<String> of(Method method, Class<?> testClass) {
    Scenario own = method.getAnnotation(Scenario.class);
    return own != null ? Optional.of(own.value()) : of(testClass);
  }

  /** The scenario a whole class is the demo of, if any. */
  public static Optional<String> of(Class<?> testClass) {
    return Optional.ofNullable(testClass.getAnnotation(Scenario.class)).map(Scenario::value);
  }

  /** The first scenario a class or any of its methods shows, if any. */
  static Optional<String> first(Class<?> testClass) {
    return Stream.concat(
            of(testClass).stream(),
            Arrays.stream(testClass.getDeclaredMethods())
                .map(m -> m.getAnnotation(Scenario.class))
                .filter(s -> s != null)
                .map(Scenario::value))
        .min(Comparator.naturalOrder());
  }

  /** Scenarios first, by name; the rest after, as they came (the sort is stable). */
  private static final Comparator<Optional<String>> SCENARIOS_FIRST =
      Comparator.comparing((Optional<String> s) -> s.isEmpty()).thenComparing(s -> s.orElse(""));

  /** {@code junit.jupiter.testmethod.order.default}: a class's methods by scenario. */
  public static final class Methods implements MethodOrderer {
    @Override
    public void orderMethods(MethodOrdererContext context) {
      context
          .getMethodDescriptors()
          .sort(
              Comparator.comparing(
                  (MethodDescriptor m) -> of(m.getMethod(), context.getTestClass()),
                  SCENARIOS_FIRST));
    }
  }

  /** {@code junit.jupiter.testclass.order.default}: classes by their first scenario. */
  public static final class Classes implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
      context
          .getClassDescriptors()
          .sort(
              Comparator.comparing(
                  (ClassDescriptor c) -> first(c.getTestClass()), SCENARIOS_FIRST));
    }
  }
}
