package dev.tessera.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.compiler.CelCompiler;
import dev.cel.extensions.CelExtensions;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates device selectors against devices as the scheduler does: compiled in Kubernetes' DRA CEL
 * environment ({@link DraCelEnvironment}), run with its libraries. A selector that does not
 * compile, does not give a bool, or fails at run time (a missing attribute: the maps are keyed by
 * what the device has) gives a {@link Outcome.Failed} with CEL's message. Each expression is
 * compiled once per instance.
 */
public final class DeviceSelectors {
  /** What one selector says of one device. */
  public sealed interface Outcome {
    record Matches(boolean value) implements Outcome {}

    record Failed(String message) implements Outcome {}
  }

  private final CelCompiler compiler = DraCelEnvironment.compiler(Map.of(), Set.of());
  private final CelRuntime runtime =
      CelRuntimeFactory.standardCelRuntimeBuilder()
          .addLibraries(
              CelExtensions.strings(),
              CelExtensions.lists(),
              CelExtensions.sets(CelOptions.DEFAULT))
          .addFunctionBindings(KubernetesLibraries.bindings())
          .build();
  private final Map<String, Compiled> programs = new HashMap<>();

  private sealed interface Compiled {
    record Program(CelRuntime.Program program) implements Compiled {}

    record Error(String message) implements Compiled {}
  }

  public Outcome evaluate(String expression, CelDevice device) {
    Compiled compiled = programs.computeIfAbsent(expression, this::compile);
    return switch (compiled) {
      case Compiled.Error e -> new Outcome.Failed(e.message());
      case Compiled.Program p -> run(p.program(), device);
    };
  }

  private Compiled compile(String expression) {
    try {
      CelAbstractSyntaxTree ast = compiler.compile(expression).getAst();
      return new Compiled.Program(runtime.createProgram(ast));
    } catch (CelValidationException | CelEvaluationException e) {
      return new Compiled.Error("does not compile: " + firstLine(e.getMessage()));
    }
  }

  private static Outcome run(CelRuntime.Program program, CelDevice device) {
    try {
      Object result = program.eval(Map.of("device", device.asCelValue()));
      return result instanceof Boolean b
          ? new Outcome.Matches(b)
          : new Outcome.Failed("gives " + result + ", not a bool");
    } catch (CelEvaluationException | RuntimeException e) {
      return new Outcome.Failed(firstLine(e.getMessage()));
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
