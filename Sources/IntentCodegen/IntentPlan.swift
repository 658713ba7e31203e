import BundleManifest
import ExtensionProtocol

/// What the generator writes, with every name already checked: the Swift identifier of each thing and the name the
/// wire uses for it.
struct IntentPlan: Equatable {
  var enums: [EnumPlan]
  var intents: [IntentTypePlan]
  /// Whether a property is a `Date` (the file then imports Foundation's).
  var usesDate: Bool

  struct Member: Equatable {
    /// The Swift identifier, unescaped.
    var identifier: String
    /// The name on the wire (a parameter's, a code's, an enum value's).
    var wireName: String
  }

  struct EnumPlan: Equatable {
    var typeName: String
    var wireName: String
    var cases: [Member]
  }

  struct Property: Equatable {
    var member: Member
    /// The Swift type of a value, without the optional.
    var swiftType: String
    /// The definition's type, for the doc comment ("Integer", "[String]"), escaped as in a literal: an enum's or an
    /// unknown type's name is the definition's, and a newline in it would end the comment.
    var definitionType: String
    /// `resolveNAME`: intent parameters only.
    var resolveMethod: String
  }

  struct IntentTypePlan: Equatable {
    /// `IntentsSupported`'s name, e.g. "BookRoomIntent".
    var className: String
    var typeName: String
    var handlingName: String
    var responseName: String
    var parameters: [Property]
    var codes: [Member]
    var responseParameters: [Property]
  }
}

/// Makes the plan of definitions, refusing what cannot be Swift with an error that names the file, the thing and
/// the fix.
struct IntentPlanner {
  /// Members of a generated intent that no parameter may be called.
  static let intentMembers: Set<String> = ["identifier", "className", "untyped"]
  /// Members of a generated response that no response parameter may be called.
  static let responseMembers: Set<String> = ["code", "Code", "userActivity", "extraParameters", "untyped"]
  /// Members of a generated enum (and of a response's `Code`) that no case may be called.
  static let enumMembers: Set<String> = [
    "rawValue", "RawValue", "allCases", "AllCases", "parameterValue", "hashValue", "hash",
  ]
  /// Top-level names the generated code itself uses unqualified.
  static let topLevelNames: Set<String> = ["Date", "Code"]

  private var enums: [IntentPlan.EnumPlan] = []
  private var enumTypeNames: [String: String] = [:]
  private var intents: [IntentPlan.IntentTypePlan] = []
  private var usesDate = false
  /// Top-level Swift name to what took it, for collisions.
  private var topLevel: [String: String] = [:]

  /// The plan of the intents and enums of `definitions` (in their order, each in file order), then of the system
  /// intents named in `systemIntents` (`SystemIntent.catalog`, with the Apple enums they take).
  /// - Parameter systemIntentsFile: the file that listed the system intents, for errors (an Info.plist).
  static func plan(
    _ definitions: [IntentDefinition], systemIntents: [String] = [], systemIntentsFile: String = "IntentsSupported"
  ) throws(IntentCodegenError) -> IntentPlan {
    var planner = IntentPlanner()
    for definition in definitions {
      for enumeration in definition.enums { try planner.add(enumeration, file: definition.file) }
    }
    for definition in definitions {
      for intent in definition.intents { try planner.add(intent, of: definition, file: definition.file) }
    }
    for className in systemIntents {
      guard let system = SystemIntent.named(className) else {
        throw IntentCodegenError(
          file: systemIntentsFile, subject: "system intent \(SwiftIdentifier.literal(className))",
          problem: "is not an Apple intent IntentHost knows",
          fix:
            "list only system intents of IntentHost's catalog (SystemIntent.catalog), or define the intent in a definition"
        )
      }
      try planner.add(system.spec, of: nil, file: systemIntentsFile)
    }
    return IntentPlan(enums: planner.enums, intents: planner.intents, usesDate: planner.usesDate)
  }

  private mutating func claimTopLevel(_ name: String, by owner: String, file: String, fix: String)
    throws(IntentCodegenError)
  {
    if SwiftIdentifier.unusable.contains(name) || Self.topLevelNames.contains(name) {
      throw IntentCodegenError(
        file: file, subject: owner, problem: "would declare the Swift type \(name), a name Swift or the SDK needs",
        fix: fix)
    }
    if let other = topLevel[name] {
      throw IntentCodegenError(
        file: file, subject: owner, problem: "would declare the Swift type \(name), which \(other) declares too",
        fix: fix)
    }
    topLevel[name] = owner
  }

  private mutating func add(_ enumeration: EnumSpec, file: String) throws(IntentCodegenError) {
    let subject = "enum \(SwiftIdentifier.literal(enumeration.name))"
    let typeName = try identifier(
      for: enumeration.name, subject: subject, file: file, fix: "rename the enum to a Swift type name, e.g. RoomKind")
    try claimTopLevel(typeName, by: subject, file: file, fix: "rename the enum")
    guard !enumeration.values.isEmpty else {
      throw IntentCodegenError(
        file: file, subject: subject, problem: "has no values, and a Swift enum with a raw type needs one",
        fix: "add a value to the enum, or remove the enum")
    }
    var cases: [IntentPlan.Member] = []
    var taken: [String: String] = [:]
    var wireNames: Set<String> = []
    for value in enumeration.values {
      let valueSubject = "\(subject), value \(SwiftIdentifier.literal(value.name))"
      guard wireNames.insert(value.name).inserted else {
        throw IntentCodegenError(
          file: file, subject: valueSubject, problem: "appears twice", fix: "give each value of the enum its own name")
      }
      let identifier = try member(
        for: value.name, reserved: Self.enumMembers, taken: &taken, subject: valueSubject, file: file,
        fix: "rename the value")
      cases.append(IntentPlan.Member(identifier: identifier, wireName: value.name))
    }
    enumTypeNames[enumeration.name] = typeName
    enums.append(IntentPlan.EnumPlan(typeName: typeName, wireName: enumeration.name, cases: cases))
  }

  private mutating func add(_ intent: IntentSpec, of definition: IntentDefinition?, file: String)
    throws(IntentCodegenError)
  {
    let subject = "intent \(SwiftIdentifier.literal(intent.name))"
    let typeName = try identifier(
      for: intent.className, subject: subject, file: file, fix: "rename the intent to a Swift type name, e.g. BookRoom")
    let fix = "rename the intent (or the enum of the same name)"
    try claimTopLevel(typeName, by: subject, file: file, fix: fix)
    try claimTopLevel(typeName + "Handling", by: subject, file: file, fix: fix)
    try claimTopLevel(typeName + "Response", by: subject, file: file, fix: fix)

    var parameters: [IntentPlan.Property] = []
    var taken: [String: String] = [:]
    var methods: [String: String] = [:]
    for parameter in intent.parameters {
      let parameterSubject = "\(subject), parameter \(SwiftIdentifier.literal(parameter.name))"
      let identifier = try member(
        for: parameter.name, reserved: Self.intentMembers, taken: &taken, subject: parameterSubject, file: file,
        fix: "rename the parameter")
      let method = "resolve" + SwiftIdentifier.capitalized(identifier)
      if let other = methods[method] {
        throw IntentCodegenError(
          file: file, subject: parameterSubject,
          problem: "would be resolved by \(method), as parameter \(SwiftIdentifier.literal(other)) is",
          fix: "rename one of the two parameters")
      }
      methods[method] = parameter.name
      let type = try swiftType(
        parameter.type, multiple: parameter.supportsMultipleValues, enumType: parameter.enumType,
        enumNamespace: parameter.enumNamespace, of: definition, subject: parameterSubject, file: file)
      parameters.append(
        IntentPlan.Property(
          member: IntentPlan.Member(identifier: identifier, wireName: parameter.name), swiftType: type.swift,
          definitionType: type.definition, resolveMethod: method))
    }

    var codes: [IntentPlan.Member] = []
    var codeIdentifiers: [String: String] = [:]
    var codeNames: Set<String> = []
    for name in ResponseCode.standard.map(\.rawValue) + (intent.response?.codes.map(\.name) ?? [])
    where codeNames.insert(name).inserted {
      let identifier = try member(
        for: name, reserved: Self.enumMembers, taken: &codeIdentifiers,
        subject: "\(subject), response code \(SwiftIdentifier.literal(name))", file: file, fix: "rename the code")
      codes.append(IntentPlan.Member(identifier: identifier, wireName: name))
    }

    var responseParameters: [IntentPlan.Property] = []
    var responseTaken: [String: String] = [:]
    for parameter in intent.response?.parameters ?? [] {
      let parameterSubject = "\(subject), response parameter \(SwiftIdentifier.literal(parameter.name))"
      let identifier = try member(
        for: parameter.name, reserved: Self.responseMembers, taken: &responseTaken, subject: parameterSubject,
        file: file, fix: "rename the response parameter")
      let type = try swiftType(
        parameter.type, multiple: parameter.supportsMultipleValues, enumType: parameter.enumType, of: definition,
        subject: parameterSubject, file: file)
      responseParameters.append(
        IntentPlan.Property(
          member: IntentPlan.Member(identifier: identifier, wireName: parameter.name), swiftType: type.swift,
          definitionType: type.definition, resolveMethod: ""))
    }

    intents.append(
      IntentPlan.IntentTypePlan(
        className: intent.className, typeName: typeName, handlingName: typeName + "Handling",
        responseName: typeName + "Response", parameters: parameters, codes: codes,
        responseParameters: responseParameters))
  }

  /// The Swift type of a parameter's property (without the optional), and the definition's type in words.
  private mutating func swiftType(
    _ type: ParameterType, multiple: Bool, enumType: String?, enumNamespace: String? = nil,
    of definition: IntentDefinition?, subject: String, file: String
  ) throws(IntentCodegenError) -> (swift: String, definition: String) {
    let element: String
    // Xcode writes an enum parameter as Integer with INIntentParameterEnumType; the catalog as Enum.
    if let enumType, type == .integer || type == .enumeration {
      element =
        try enumTypeName(enumType, namespace: enumNamespace, of: definition, subject: subject, file: file)
        ?? "ExtensionSDK.ParameterValue"
    } else if let scalar = SwiftTypeMapping.scalar(type) {
      element = scalar
      if SwiftTypeMapping.usesDate(type) { usesDate = true }
    } else {
      throw IntentCodegenError(
        file: file, subject: subject, problem: "is an Enum but names no enum (INIntentParameterEnumType)",
        fix: "choose the enum of the parameter in the intent definition")
    }
    let definitionType = SwiftIdentifier.escapedText(enumType ?? type.rawValue)
    return multiple ? ("[\(element)]", "[\(definitionType)]") : (element, definitionType)
  }

  /// The generated enum `name` is, adding an Apple enum the first time a parameter takes it. Xcode names Apple's
  /// enums without their prefix in the System namespace ("OutgoingMessageType" for `INOutgoingMessageType`); one
  /// that IntentHost does not know (`SystemEnum.catalog`) has no Swift enum: nil, and its values stay
  /// `ParameterValue`s.
  private mutating func enumTypeName(
    _ name: String, namespace: String?, of definition: IntentDefinition?, subject: String, file: String
  ) throws(IntentCodegenError) -> String? {
    if let typeName = enumTypeNames[name] { return typeName }
    let isSystem = namespace == "System"
    if definition?.enumeration(named: name) == nil,
      let system = SystemEnum.named(name) ?? (isSystem ? SystemEnum.named("IN" + name) : nil)
    {
      if enumTypeNames[system.spec.name] == nil { try add(system.spec, file: file) }
      enumTypeNames[name] = enumTypeNames[system.spec.name]
      return enumTypeNames[name]
    }
    if isSystem { return nil }
    throw IntentCodegenError(
      file: file, subject: subject,
      problem: "takes the enum \(SwiftIdentifier.literal(name)), which is neither in INEnums nor an Apple enum",
      fix: "add the enum to the definition's INEnums, or choose another type for the parameter")
  }

  /// `name` as a Swift type name: refused when nothing of it is an identifier.
  private func identifier(for name: String, subject: String, file: String, fix: String) throws(IntentCodegenError)
    -> String
  {
    let identifier = SwiftIdentifier.mangled(name)
    guard !identifier.isEmpty else {
      throw IntentCodegenError(
        file: file, subject: subject, problem: "has no letter, digit or underscore to make a Swift name of", fix: fix)
    }
    return identifier
  }

  /// `name` as a member's identifier, unique among `taken` (identifier to the name that took it) and outside
  /// `reserved` and the names Swift keeps.
  private func member(
    for name: String, reserved: Set<String>, taken: inout [String: String], subject: String, file: String,
    fix: String
  ) throws(IntentCodegenError) -> String {
    let identifier = try self.identifier(for: name, subject: subject, file: file, fix: fix)
    if reserved.contains(identifier) || SwiftIdentifier.unusable.contains(identifier) {
      throw IntentCodegenError(
        file: file, subject: subject, problem: "would be the Swift name \(identifier), which the generated type needs",
        fix: fix)
    }
    if let other = taken[identifier] {
      throw IntentCodegenError(
        file: file, subject: subject,
        problem: "would be the Swift name \(identifier), as \(SwiftIdentifier.literal(other)) is",
        fix: fix + " so that the two differ in letters or digits")
    }
    taken[identifier] = name
    return identifier
  }
}
