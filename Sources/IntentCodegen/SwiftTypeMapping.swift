import BundleManifest

/// The Swift type of a parameter's values (docs/INTENT-CODEGEN.md, "Type mapping"), as the wire carries them
/// (`ParameterValue`, and what `Understanding` reads a spoken value as).
enum SwiftTypeMapping {
  /// The Swift type of one value of `type`, spelled fully qualified so that no generated name can shadow it; nil
  /// for an enum, whose type is the generated enum.
  static func scalar(_ type: ParameterType) -> String? {
    switch type {
    case .string, .speakableString: "Swift.String"
    case .integer: "Swift.Int"
    // A duration is read as a number of seconds; an amount of Currency is a number.
    case .decimal, .double, .currency, .duration: "Swift.Double"
    case .boolean: "Swift.Bool"
    // Written `Date`: FoundationEssentials' where it exists, Foundation's elsewhere (the generated file imports the
    // one there is); `Date` is a name the generator never declares.
    case .date, .dateComponents: "Date"
    case .object: "ExtensionSDK.ObjectValue"
    case .enumeration: nil
    // No Swift type of their own on the wire: a person, a place, an amount with its currency, a span of dates, a
    // file, media, and Xcode's TimeInterval (read as text by the host today) keep their `ParameterValue`.
    case .currencyAmount, .timeInterval, .dateComponentsRange, .person, .placemark, .file, .mediaItem, .mediaSearch,
      .restaurant, .paymentAccount, .paymentAmount, .note, .noteContent, .other:
      "ExtensionSDK.ParameterValue"
    }
  }

  /// Whether values of `type` are dates (the generated file then imports Foundation's `Date`).
  static func usesDate(_ type: ParameterType) -> Bool { type == .date || type == .dateComponents }
}
