import BundleManifest
import ExtensionProtocol
import Foundation

/// Finds installed apps and their intents by the names users use.
public struct Router: Sendable {
  public let apps: [AppBundle]

  public init(apps: [AppBundle]) { self.apps = apps }

  /// The app called `name` (display name, bundle name, spoken or alternative name, executable or bundle id).
  /// - Throws: `HostError(.noMatch)` listing the installed apps.
  public func app(named name: String) throws -> AppBundle {
    if let app = apps.first(where: {
      $0.info.bundleIdentifier == name || $0.names.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }) {
      return app
    }
    throw HostError(
      .noMatch, "no installed app is called \"\(name)\"; installed: \(listOrNone(apps.map(\.name)))")
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
