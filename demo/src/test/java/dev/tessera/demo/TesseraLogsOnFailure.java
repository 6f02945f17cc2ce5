package dev.tessera.demo;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * When a test of a class running Tessera fails, prints the last lines of the node plugin's and the
 * controller's logs (of the class's static {@link TesseraOnNode}) while they still run, so the demo
 * report shows them with the failure — and nowhere else.
 */
final class TesseraLogsOnFailure implements TestWatcher {
  static final int LINES = 60;

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    tessera(context.getRequiredTestClass())
        .ifPresent(
            t -> {
              try {
                System.out.print(t.deployment().logs(LINES));
              } catch (Exception | AssertionError e) {
                System.out.println("--- Tessera's logs could not be read: " + e);
              }
            });
  }

  private static Optional<TesseraOnNode> tessera(Class<?> testClass) {
    for (Field f : testClass.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == TesseraOnNode.class) {
        try {
          f.setAccessible(true);
          TesseraOnNode tessera = (TesseraOnNode) f.get(null);
          if (tessera != null && tessera.deployment() != null) {
            return Optional.of(tessera);
          }
        } catch (IllegalAccessException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }
}
