package dev.tessera.cel;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Kubernetes' CEL environment for device selectors, as cel-java declarations: {@code device} with
 * {@code driver}, {@code attributes} and {@code capacity} (maps by domain, then name) and {@code
 * allowMultipleAllocations}; the {@code quantity()} and {@code semver()} libraries as types with
 * their member functions; and CEL's string, list and set extensions. Other domains' attributes are
 * {@code dyn}, as in Kubernetes. For the type check, the driver's own domain is declared as two
 * structs whose fields are exactly what the driver publishes ({@link #ATTRIBUTES}, {@link
 * #CAPACITY}): the controller's selector lint puts them where a selector reads the driver's domain;
 * {@link DeviceSelectors} evaluates with {@code device} alone, as the scheduler does.
 */
public final class DraCelEnvironment {
  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  static final OpaqueType SEMVER = OpaqueType.create("kubernetes.Semver");

  /** The variables that stand for {@code device.attributes[<driver>]} and its capacity. */
  public static final String ATTRIBUTES = "tessera_attributes";

  public static final String CAPACITY = "tessera_capacity";

  private DraCelEnvironment() {}

  /**
   * @param driverAttributes the driver domain's attribute names and types
   * @param driverCapacities the driver domain's capacity names (all quantities)
   */
  public static CelCompiler compiler(
      Map<String, AttributeType> driverAttributes, Set<String> driverCapacities) {
    Map<String, CelType> attributeFields = new LinkedHashMap<>();
    driverAttributes.forEach((name, type) -> attributeFields.put(name, celType(type)));
    Map<String, CelType> capacityFields = new LinkedHashMap<>();
    driverCapacities.forEach(name -> capacityFields.put(name, QUANTITY));
    StructType attributes = struct("tessera.DriverAttributes", attributeFields);
    StructType capacity = struct("tessera.DriverCapacity", capacityFields);
    StructType device =
        struct(
            "kubernetes.DRADevice",
            Map.of(
                "driver",
                SimpleType.STRING,
                "attributes",
                MapType.create(
                    SimpleType.STRING, MapType.create(SimpleType.STRING, SimpleType.DYN)),
                "capacity",
                MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, QUANTITY)),
                "allowMultipleAllocations",
                SimpleType.BOOL));
    List<CelType> types = List.of(device, attributes, capacity, QUANTITY, SEMVER);
    return CelCompilerFactory.standardCelCompilerBuilder()
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addLibraries(
            CelExtensions.strings(), CelExtensions.lists(), CelExtensions.sets(CelOptions.DEFAULT))
        .setTypeProvider(provider(types))
        .addVar("device", device)
        .addVar(ATTRIBUTES, attributes)
        .addVar(CAPACITY, capacity)
        .addFunctionDeclarations(libraries())
        .build();
  }

  private static CelType celType(AttributeType type) {
    return switch (type) {
      case STRING -> SimpleType.STRING;
      case INT -> SimpleType.INT;
      case BOOL -> SimpleType.BOOL;
      case VERSION -> SEMVER;
    };
  }

  /**
   * Kubernetes' {@code quantity} and {@code semver} libraries (k8s.io/apiserver/pkg/cel/library):
   * neither type has CEL's ordering operators, only {@code ==} and these functions. The second
   * argument of {@code semver()} and {@code isSemver()} asks to normalize ("1.0" is "1.0.0"). The
   * overload ids are what {@link KubernetesLibraries} binds at run time.
   */
  private static List<CelFunctionDecl> libraries() {
    var q = QUANTITY;
    var v = SEMVER;
    var functions = new Functions();
    functions.global("quantity", q, SimpleType.STRING);
    functions.global("isQuantity", SimpleType.BOOL, SimpleType.STRING);
    functions.member("sign", SimpleType.INT, q);
    functions.member("isInteger", SimpleType.BOOL, q);
    functions.member("asInteger", SimpleType.INT, q);
    functions.member("asApproximateFloat", SimpleType.DOUBLE, q);
    functions.member("add", q, q, q);
    functions.member("add", q, q, SimpleType.INT);
    functions.member("sub", q, q, q);
    functions.member("sub", q, q, SimpleType.INT);
    functions.global("semver", v, SimpleType.STRING);
    functions.global("semver", v, SimpleType.STRING, SimpleType.BOOL);
    functions.global("isSemver", SimpleType.BOOL, SimpleType.STRING);
    functions.global("isSemver", SimpleType.BOOL, SimpleType.STRING, SimpleType.BOOL);
    functions.member("major", SimpleType.INT, v);
    functions.member("minor", SimpleType.INT, v);
    functions.member("patch", SimpleType.INT, v);
    for (CelType t : List.of(q, v)) {
      functions.member("isGreaterThan", SimpleType.BOOL, t, t);
      functions.member("isLessThan", SimpleType.BOOL, t, t);
      functions.member("compareTo", SimpleType.INT, t, t);
    }
    return functions.declarations();
  }

  /** Overloads by function name, each with an id made of its name and parameter types. */
  static final class Functions {
    private final Map<String, List<CelOverloadDecl>> overloads = new LinkedHashMap<>();

    void global(String name, CelType result, CelType... parameters) {
      add(name, CelOverloadDecl.newGlobalOverload(id(name, parameters), result, parameters));
    }

    /** A member function of the type of its first parameter, the receiver. */
    void member(String name, CelType result, CelType... parameters) {
      add(name, CelOverloadDecl.newMemberOverload(id(name, parameters), result, parameters));
    }

    private void add(String name, CelOverloadDecl overload) {
      overloads.computeIfAbsent(name, n -> new ArrayList<>()).add(overload);
    }

    static String id(String name, CelType... parameters) {
      var id = new StringBuilder(name);
      for (CelType p : parameters) {
        id.append('_').append(p.name().replace('.', '_'));
      }
      return id.toString();
    }

    List<CelFunctionDecl> declarations() {
      var declarations = new ArrayList<CelFunctionDecl>();
      overloads.forEach(
          (name, list) -> declarations.add(CelFunctionDecl.newFunctionDeclaration(name, list)));
      return declarations;
    }
  }

  private static StructType struct(String name, Map<String, CelType> fields) {
    return StructType.create(
        name,
        ImmutableSet.copyOf(fields.keySet()),
        field -> Optional.ofNullable(fields.get(field)));
  }

  private static CelTypeProvider provider(List<CelType> types) {
    return new CelTypeProvider() {
      @Override
      public ImmutableList<CelType> types() {
        return ImmutableList.copyOf(types);
      }

      @Override
      public Optional<CelType> findType(String name) {
        return types.stream().filter(t -> t.name().equals(name)).findFirst();
      }
    };
  }
}
