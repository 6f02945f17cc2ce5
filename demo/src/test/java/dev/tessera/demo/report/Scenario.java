package dev.tessera.demo.report;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks the E2E test that is a demo scenario's demo: {@code @Scenario("01-gpu-per-pod")} names the
 * directory under demo/scenarios it shows. On a method, that test; on a class, every test of it
 * (together, as one scenario). Each scenario has exactly one such test or class ({@code
 * ScenarioCoverageTest}); other tests may apply its YAML, but they are not its demo. The demo runs
 * only these ({@code -Dgroups=scenario}), ordered by {@link ScenarioOrder} and reported by {@link
 * DemoReportListener}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@Tag(Scenario.TAG)
public @interface Scenario {
  /** The JUnit tag every scenario test carries, for selecting them. */
  String TAG = "scenario";

  /** The scenario's directory name under demo/scenarios, e.g. {@code 01-gpu-per-pod}. */
  String value();
}
