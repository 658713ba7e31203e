import BundleManifest
import ExtensionProtocol
import Foundation

/// Finds installed apps and their intents by the names users use.
public struct Router: Sendable {
  public let apps: [AppBundle]

  public init(apps: [AppBundle]) { self.apps = apps }

  /// The app called `name`: the one whose bundle id is `name`, else the one that answers to it (display name, bundle
  /// name, spoken or alternative name, executable; case-insensitively). A name is never resolved by picking one of
  /// several apps: two installed apps can have the same name, and only the bundle id tells them apart.
  /// - Throws: `HostError(.noMatch)` listing the installed apps, or, when several apps answer to `name`, listing them
  ///   by bundle id and saying to use it.
  public func app(named name: String) throws -> AppBundle {
    let byIdentifier = apps.filter { $0.identifier.rawValue == name }
    let candidates =
      byIdentifier.isEmpty
      ? apps.filter { $0.names.contains { $0.caseInsensitiveCompare(name) == .orderedSame } } : byIdentifier
    if candidates.count == 1 { return candidates[0] }
    if candidates.count > 1 { throw Self.ambiguous("\"\(name)\" is the name of", candidates) }
    throw HostError(
      .noMatch, "no installed app is called \"\(name)\"; installed: \(listOrNone(apps.map(\.name)))")
  }

  /// The refusal of a name several installed apps answer to: `what` (e.g. `"Rooms" is the name of`), the number of
  /// apps, each by bundle id and name, and to use the bundle id instead.
  static func ambiguous(_ what: String, _ candidates: [AppBundle], example: String? = nil) -> HostError {
    let sorted = candidates.sorted { ($0.identifier, $0.url.path) < ($1.identifier, $1.url.path) }
    return HostError(
      .noMatch,
      "\(what) \(sorted.count) installed apps: "
        + sorted.map { "\($0.identifier) (\($0.name))" }.joined(separator: ", ")
        + "; use the bundle id instead of the name to say which"
        + (example.map { ", e.g. \($0.replacingOccurrences(of: "BUNDLE-ID", with: sorted[0].identifier.rawValue))" }
          ?? ""))
  }

  /// The intent class of `app` called `name`: the class name ("BookRoomIntent"), the definition name ("BookRoom"),
  /// or its title ("Book Room"), case-insensitively.
  /// - Throws: `HostError(.noMatch)` listing the app's intents.
  public func intentClass(named name: String, in app: AppBundle) throws -> String {
    let wanted = name.lowercased().filter { !$0.isWhitespace }
    for className in app.supportedIntents {
      let spec = app.runnableSpec(className: className)?.spec
      let candidates = [className, spec?.name, spec?.title].compactMap { $0?.lowercased().filter { !$0.isWhitespace } }
      if candidates.contains(wanted) || className.lowercased() == wanted + "intent" { return className }
    }
    throw HostError(
      .noMatch, "\(app.name) has no intent called \"\(name)\"; it supports \(listOrNone(app.supportedIntents))")
  }

  /// Parses `name=value` arguments into typed values using the intent's definition.
  /// - Throws: `HostError(.usage)` naming the argument and what it should be.
  public func values(_ arguments: [String], intentClass: String, in app: AppBundle) throws -> [String: ParameterValue] {
    let found = app.runnableSpec(className: intentClass)
    let interpreter = ValueInterpreter(
      intentClass: intentClass, definition: found?.definition, vocabularies: app.vocabularies)
    var values: [String: ParameterValue] = [:]
    for argument in arguments {
      guard let equals = argument.firstIndex(of: "=") else {
        throw HostError(.usage, "\"\(argument)\" is not name=value (e.g. roomNumber=12)")
      }
      let name = String(argument[..<equals])
      let text = String(argument[argument.index(after: equals)...])
      guard let spec = found?.spec else {
        throw HostError(
          .dataError, "\(app.name) has no intent definition for \(intentClass), so \(name)= cannot be typed")
      }
      guard let parameter = spec.parameter(named: name) else {
        throw HostError(
          .usage,
          "\(intentClass) has no parameter \"\(name)\"; its parameters are "
            + listOrNone(spec.parameters.map(\.name)))
      }
      guard let value = interpreter.parse(text, for: parameter) else {
        throw HostError(
          .usage,
          "\(name)=\(text): \(parameter.label) (\(parameter.type)) needs \(interpreter.expectation(for: parameter))")
      }
      values[name] = value
    }
    return values
  }
}
