import BundleManifest
import ExtensionProtocol
import Foundation
import NameSuggestions

/// Finds installed apps and their intents by the names users use.
package struct Router: Sendable {
  package let apps: [AppBundle]
  /// The user's locale (`--locale`): the apps' names for it (`AppBundle.localizedNames(for:)`) are names too.
  package let locale: String?

  package init(apps: [AppBundle], locale: String? = nil) {
    self.apps = apps
    self.locale = locale
  }

  /// Whether `name` names `app`: its bundle id, or one of its names (display name, bundle name, spoken or
  /// alternative name, executable, and under `locale` those of its `InfoPlist.strings`) compared as spoken words, so
  /// case, punctuation and spacing never matter ("study rooms" is "Study Rooms"). The one rule for every command and
  /// for utterances (`UtteranceMatcher` compares the same words).
  package static func answers(_ app: AppBundle, to name: String, locale: String? = nil) -> Bool {
    if app.identifier.rawValue == name { return true }
    let words = normalizedWords(name)
    let names = app.names + (locale.map { app.localizedNames(for: $0) } ?? [])
    return !words.isEmpty && names.contains { normalizedWords($0) == words }
  }

  /// The apps `name` names: the one whose bundle id it is, else every app that answers to it.
  package func apps(answeringTo name: String) -> [AppBundle] {
    let byIdentifier = apps.filter { $0.identifier.rawValue == name }
    return byIdentifier.isEmpty ? apps.filter { Self.answers($0, to: name, locale: locale) } : byIdentifier
  }

  /// The extensions `name` names (their bundle id, or their name as spoken words), with their apps.
  package func extensions(answeringTo name: String) -> [(app: AppBundle, extension: ExtensionBundle)] {
    let words = normalizedWords(name)
    return apps.flatMap { app in
      app.extensions.filter {
        $0.identifier.rawValue == name || (!words.isEmpty && normalizedWords($0.name) == words)
      }.map { (app, $0) }
    }
  }

  /// The one extension `name` names.
  /// - Throws: `UnderstandingError(.noMatch)` when none or several do.
  package func onlyExtension(answeringTo name: String) throws -> (app: AppBundle, extension: ExtensionBundle) {
    let found = extensions(answeringTo: name)
    guard found.count == 1 else {
      throw UnderstandingError(
        .noMatch,
        found.isEmpty
          ? "no installed extension is called \"\(name)\""
          : "\"\(name)\" is the name of \(found.count) installed extensions: "
            + found.map { "\($0.extension.identifier)" }.sorted().joined(separator: ", ")
            + "; use the bundle id instead of the name to say which")
    }
    return found[0]
  }

  /// The app called `name` (`apps(answeringTo:)`). A name is never resolved by picking one of several apps: two
  /// installed apps can have the same name, and only the bundle id tells them apart.
  /// - Parameter orExtension: whether the caller also takes an extension's name (for the suggestions).
  /// - Throws: `UnderstandingError(.noMatch)` naming the closest installed names ("did you mean") and listing the installed
  ///   apps, or, when several apps answer to `name`, listing them by bundle id and saying to use it.
  package func app(named name: String, orExtension: Bool = false) throws -> AppBundle {
    let candidates = apps(answeringTo: name)
    if candidates.count == 1 { return candidates[0] }
    if candidates.count > 1 { throw Self.ambiguous("\"\(name)\" is the name of", candidates) }
    var known = apps.flatMap { [$0.name, $0.identifier.rawValue] + (locale.map($0.localizedNames(for:)) ?? []) }
    if orExtension { known += apps.flatMap { $0.extensions.map(\.name) } }
    throw UnderstandingError(
      .noMatch,
      "no installed app is called \"\(name)\""
        + suggestion(name, among: known) + "; installed: \(installedNames(apps))")
  }

  /// The refusal of a name several installed apps answer to: `what` (e.g. `"Rooms" is the name of`), the number of
  /// apps, each by bundle id and name, and to use the bundle id instead.
  /// - Parameter example: what the user asked (the utterance without the app's name) and the app that understands
  ///   it: the refusal ends `e.g. "REQUEST with BUNDLE-ID"`, with that app's bundle id.
  static func ambiguous(_ what: String, _ candidates: [AppBundle], example: (request: String, app: AppBundle)? = nil)
    -> UnderstandingError
  {
    let sorted = candidates.sorted { ($0.identifier, $0.url.path) < ($1.identifier, $1.url.path) }
    return UnderstandingError(
      .noMatch,
      "\(what) \(sorted.count) installed apps: "
        + sorted.map { "\($0.identifier) (\($0.name))" }.joined(separator: ", ")
        + "; use the bundle id instead of the name to say which"
        + (example.map { ", e.g. \"\($0.request) with \($0.app.identifier)\"" } ?? ""))
  }

  /// The intent class of `app` called `name`: the class name ("BookRoomIntent"), the definition name ("BookRoom"),
  /// or its title ("Book Room"), case-insensitively.
  /// - Throws: `UnderstandingError(.noMatch)` listing the app's intents.
  package func intentClass(named name: String, in app: AppBundle) throws -> String {
    let wanted = name.lowercased().filter { !$0.isWhitespace }
    for className in app.supportedIntents {
      let spec = app.runnableSpec(className: className)?.spec
      let candidates = [className, spec?.name, spec?.title].compactMap { $0?.lowercased().filter { !$0.isWhitespace } }
      if candidates.contains(wanted) || className.lowercased() == wanted + "intent" { return className }
    }
    let names = app.supportedIntents.flatMap { className -> [String] in
      let spec = app.runnableSpec(className: className)?.spec
      return [className, spec?.name].compactMap { $0 }
    }
    throw UnderstandingError(
      .noMatch,
      "\(app.name) has no intent called \"\(name)\""
        + suggestion(name, among: names) + "; it supports \(listOrNone(app.supportedIntents))")
  }

  /// Parses `name=value` arguments into typed values using the intent's definition.
  /// - Throws: `UnderstandingError(.usage)` naming the argument and what it should be.
  package func values(_ arguments: [String], intentClass: String, in app: AppBundle) throws -> [String: ParameterValue]
  {
    let found = app.runnableSpec(className: intentClass)
    let interpreter = ValueInterpreter(
      intentClass: intentClass, definition: found?.definition, vocabularies: app.vocabularies)
    var values: [String: ParameterValue] = [:]
    for argument in arguments {
      guard let equals = argument.firstIndex(of: "=") else {
        throw UnderstandingError(.usage, "\"\(argument)\" is not name=value (e.g. roomNumber=12)")
      }
      let name = String(argument[..<equals])
      let text = String(argument[argument.index(after: equals)...])
      guard let spec = found?.spec else {
        throw UnderstandingError(
          .dataError, "\(app.name) has no intent definition for \(intentClass), so \(name)= cannot be typed")
      }
      guard let parameter = spec.parameter(named: name) else {
        throw UnderstandingError(
          .usage,
          "\(intentClass) has no parameter \"\(name)\"" + suggestion(name, among: spec.parameters.map(\.name))
            + "; its parameters are " + listOrNone(spec.parameters.map(\.name)))
      }
      guard values[name] == nil else {
        throw UnderstandingError(.usage, "\(name)= is given twice (\(name)=\(text)); give each parameter once")
      }
      guard let value = interpreter.parse(text, for: parameter) else {
        throw UnderstandingError(
          .usage,
          "\(name)=\(text): \(parameter.label) (\(interpreter.typeName(of: parameter))) needs "
            + interpreter.expectation(for: parameter, caseNames: true)
        )
      }
      values[name] = value
    }
    return values
  }
}

extension AppBundle {
  /// The app's names in `locale`: the `CFBundleDisplayName`, `CFBundleName` and `CFBundleSpokenName` its
  /// `<lang>.lproj/InfoPlist.strings` gives (`strings(for:)`).
  func localizedNames(for locale: String) -> [String] {
    let table = strings(for: locale)
    return ["CFBundleDisplayName", "CFBundleName", "CFBundleSpokenName"].compactMap { table[$0] }
  }
}

/// The installed apps for a message: their names, each with its bundle id where several apps share the name
/// (`Rooms (com.example.rooms), Rooms (com.other.rooms)`), or "none".
func installedNames(_ apps: [AppBundle]) -> String {
  listOrNone(
    apps.map { app in
      apps.filter { $0.name == app.name }.count > 1 ? "\(app.name) (\(app.identifier))" : app.name
    })
}
