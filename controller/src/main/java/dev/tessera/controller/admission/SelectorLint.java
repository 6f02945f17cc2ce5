package dev.tessera.controller.admission;

import dev.cel.common.CelIssue;
import dev.cel.common.CelMutableAst;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr.ExprKind.Kind;
import dev.cel.common.ast.CelMutableExpr;
import dev.cel.common.ast.CelMutableExpr.CelMutableCall;
import dev.cel.common.ast.CelMutableExpr.CelMutableIdent;
import dev.cel.common.ast.CelMutableExpr.CelMutableSelect;
import dev.cel.common.navigation.CelNavigableMutableAst;
import dev.cel.common.navigation.CelNavigableMutableExpr;
import dev.cel.compiler.CelCompiler;
import dev.tessera.cel.AttributeType;
import dev.tessera.cel.DraCelEnvironment;
import dev.tessera.cel.NearestName;
import dev.tessera.controller.render.PublishedNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Lints one CEL device selector against what Tessera publishes (pure): every name the selector
 * reads in the driver's domain ({@code device.attributes["gpu.tessera.dev"].productName}, {@code
 * device.capacity["gpu.tessera.dev"].memory}, with {@code .name} or {@code ["name"]}) that Tessera
 * never publishes, with the nearest name it does; and every such value compared or called with the
 * wrong type (a version against a string, memory against a number). The answer is advice, never a
 * verdict: a selector that does not parse, or that the type check rejects for a reason that is not
 * one of these, gets no word from us; the API server and the scheduler's CEL judge it.
 */
public final class SelectorLint {
  /** How cel-java's checker says a declared function has no overload for the operands' types. */
  private static final String NO_MATCHING_OVERLOAD = "found no matching overload";

  private final String domain;
  private final PublishedNames published;
  private final CelCompiler compiler;

  public SelectorLint(String driverDomain, PublishedNames published) {
    this.domain = driverDomain;
    this.published = published;
    this.compiler =
        DraCelEnvironment.compiler(
            published.attributesOf(driverDomain), published.capacitiesOf(driverDomain));
  }

  /** Whether the selector names the driver's domain at all; others are not ours to lint. */
  public boolean concerns(String expression) {
    return expression.contains(domain);
  }

  /** What is wrong with the selector's use of Tessera's names; empty when nothing is. */
  public List<String> warnings(String expression) {
    if (!concerns(expression)) {
      return List.of();
    }
    CelValidationResult parsed = compiler.parse(expression);
    if (parsed.hasError()) {
      return List.of();
    }
    CelMutableAst ast;
    try {
      ast = CelMutableAst.fromCelAst(parsed.getAst());
    } catch (CelValidationException e) {
      return List.of();
    }
    var warnings = new LinkedHashSet<String>(qualifiedKeys(ast));
    Map<Long, Use> uses = new HashMap<>();
    for (Use use : uses(ast)) {
      Optional<String> unknown = unknown(use);
      if (unknown.isPresent()) {
        warnings.add(unknown.get());
      } else {
        uses.put(use.select().id(), use);
      }
      // Only now that the name is read, make the domain's map the struct of its published names.
      use.domainMap()
          .setIdent(
              CelMutableIdent.create(
                  use.capacity() ? DraCelEnvironment.CAPACITY : DraCelEnvironment.ATTRIBUTES));
    }
    CelValidationResult checked = compiler.check(ast.toParsedAst());
    if (checked.hasError()) {
      Map<Long, CelMutableExpr> nodes = new HashMap<>();
      CelNavigableMutableAst.fromAst(ast)
          .getRoot()
          .allNodes()
          .forEach(n -> nodes.put(n.id(), n.expr()));
      for (CelIssue issue : checked.getErrors()) {
        CelMutableExpr node = nodes.get(issue.getExprId());
        // A function that is declared, but not for these types; an unknown one is not ours to say.
        if (node != null
            && node.getKind() == Kind.CALL
            && issue.getMessage().contains(NO_MATCHING_OVERLOAD)) {
          operands(node.call()).stream()
              .map(operand -> uses.get(operand.id()))
              .filter(Objects::nonNull)
              .findFirst()
              .ifPresent(use -> warnings.add(wrongType(use)));
        }
      }
    }
    return List.copyOf(warnings);
  }

  /**
   * A read of one name in the driver's domain: {@code select} is {@code <domainMap>.name} (an index
   * by a constant string is made a select), {@code domainMap} is {@code device.attributes[domain]}.
   */
  private record Use(CelMutableExpr select, CelMutableExpr domainMap, boolean capacity) {
    String name() {
      return select.select().field();
    }
  }

  private List<Use> uses(CelMutableAst ast) {
    var uses = new ArrayList<Use>();
    var indexes = new ArrayList<Use>();
    CelNavigableMutableAst.fromAst(ast)
        .getRoot()
        .allNodes()
        .map(CelNavigableMutableExpr::expr)
        .forEach(
            expr -> {
              if (expr.getKind() == Kind.SELECT) {
                CelMutableExpr map = expr.select().operand();
                domainMap(map).ifPresent(capacity -> uses.add(new Use(expr, map, capacity)));
              } else if (expr.getKind() == Kind.CALL
                  && isIndex(expr.call())
                  && stringConstant(expr.call().args().get(1)).isPresent()) {
                CelMutableExpr map = expr.call().args().get(0);
                domainMap(map).ifPresent(capacity -> indexes.add(new Use(expr, map, capacity)));
              }
            });
    // map["name"] reads the same as map.name; made one after the walk, not during it.
    for (Use index : indexes) {
      String name = stringConstant(index.select().call().args().get(1)).orElseThrow();
      index.select().setSelect(CelMutableSelect.create(index.domainMap(), name));
      uses.add(index);
    }
    return uses;
  }

  /**
   * {@code device.attributes["gpu.tessera.dev/productName"]}: the maps are keyed by domain, so that
   * key is never there (the scheduler's evaluation fails on it).
   */
  private List<String> qualifiedKeys(CelMutableAst ast) {
    return CelNavigableMutableAst.fromAst(ast)
        .getRoot()
        .allNodes()
        .map(CelNavigableMutableExpr::expr)
        .filter(expr -> expr.getKind() == Kind.CALL && isIndex(expr.call()))
        .flatMap(
            expr -> {
              Optional<String> space = deviceMap(expr.call().args().get(0));
              Optional<String> key = stringConstant(expr.call().args().get(1));
              if (space.isEmpty() || key.isEmpty() || !key.get().startsWith(domain + "/")) {
                return Stream.empty();
              }
              String name = key.get().substring(domain.length() + 1);
              return Stream.of(
                  "device.%s is keyed by domain: write device.%s[\"%s\"].%s"
                      .formatted(space.get(), space.get(), domain, name));
            })
        .toList();
  }

  /** {@code attributes} or {@code capacity} when the expression is {@code device.<that>}. */
  private static Optional<String> deviceMap(CelMutableExpr map) {
    if (map.getKind() != Kind.SELECT
        || map.select().testOnly()
        || map.select().operand().getKind() != Kind.IDENT
        || !map.select().operand().ident().name().equals("device")) {
      return Optional.empty();
    }
    String field = map.select().field();
    return field.equals("attributes") || field.equals("capacity")
        ? Optional.of(field)
        : Optional.empty();
  }

  /**
   * Whether the expression is {@code device.attributes[<driver domain>]} (false) or {@code
   * device.capacity[<driver domain>]} (true); empty when it is neither.
   */
  private Optional<Boolean> domainMap(CelMutableExpr expr) {
    if (expr.getKind() != Kind.CALL
        || !isIndex(expr.call())
        || stringConstant(expr.call().args().get(1)).filter(domain::equals).isEmpty()) {
      return Optional.empty();
    }
    return deviceMap(expr.call().args().get(0)).map(field -> field.equals("capacity"));
  }

  private static boolean isIndex(CelMutableCall call) {
    return call.function().equals("_[_]") && call.target().isEmpty() && call.args().size() == 2;
  }

  private static Optional<String> stringConstant(CelMutableExpr expr) {
    return expr.getKind() == Kind.CONSTANT
            && expr.constant().getKind() == CelConstant.Kind.STRING_VALUE
        ? Optional.of(expr.constant().stringValue())
        : Optional.empty();
  }

  private static List<CelMutableExpr> operands(CelMutableCall call) {
    var operands = new ArrayList<CelMutableExpr>();
    call.target().ifPresent(operands::add);
    operands.addAll(call.args());
    return operands;
  }

  private Optional<String> unknown(Use use) {
    String name = use.name();
    Collection<String> valid =
        use.capacity() ? published.capacitiesOf(domain) : published.attributesOf(domain).keySet();
    if (valid.contains(name)) {
      return Optional.empty();
    }
    String what = use.capacity() ? "capacity" : "attribute";
    String head = "%s publishes no %s \"%s\"".formatted(domain, what, name);
    if (use.capacity() && published.attributesOf(domain).containsKey(name)) {
      return Optional.of(
          head + "; it is an attribute: device.attributes[\"%s\"].%s".formatted(domain, name));
    }
    if (!use.capacity()) {
      Optional<String> elsewhere = published.attributeDomainOf(name);
      if (elsewhere.isPresent()) {
        return Optional.of(
            head + "; it is in device.attributes[\"%s\"].%s".formatted(elsewhere.get(), name));
      }
    }
    return Optional.of(
        NearestName.of(name, valid)
            .map(nearest -> head + "; did you mean \"%s\"?".formatted(nearest))
            .orElseGet(() -> head + "; it publishes " + String.join(", ", sorted(valid))));
  }

  private String wrongType(Use use) {
    String name = use.name();
    if (use.capacity()) {
      return ("capacity \"%s\" of %s is a quantity: compare it with quantity(\"40Gi\") through"
              + " compareTo(), isGreaterThan() or isLessThan()")
          .formatted(name, domain);
    }
    AttributeType type = published.attributesOf(domain).get(name);
    return switch (type) {
      case VERSION ->
          ("attribute \"%s\" of %s is a version: compare it with semver(\"1.2.3\") through"
                  + " compareTo(), isGreaterThan() or isLessThan(), or ==")
              .formatted(name, domain);
      case STRING -> "attribute \"%s\" of %s is a string".formatted(name, domain);
      case INT -> "attribute \"%s\" of %s is an int".formatted(name, domain);
      case BOOL -> "attribute \"%s\" of %s is a bool".formatted(name, domain);
    };
  }

  private static List<String> sorted(Collection<String> names) {
    return names.stream().sorted().toList();
  }
}
