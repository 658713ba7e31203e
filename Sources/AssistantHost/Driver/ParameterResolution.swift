// The driver's resolution of parameters: resolve, ask for a value, choose among candidates, confirm a value.
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import Understanding
import UntrustedText

extension IntentDriver {
  /// Resolves one parameter until the extension accepts a value or says it is not required.
  func resolve(
    _ parameter: ParameterSpec, of intent: Intent, session: ExtensionSession, interpreter: ValueInterpreter,
    app: AppBundle, history: inout LockPolicy.History
  ) async throws -> ParameterValue? {
    let appName = app.name
    var intent = intent
    let need = "\(parameter.label) (\(parameter.name)) for \(appName)"
    /// How many answers the extension did not take: from the second on, the user is told how to stop.
    var refusals = 0
    /// After the extension did not take a value: what the app knows for the parameter, or how to stop.
    func hint() async {
      refusals += 1
      let known = await knownTerms(for: parameter, of: app, interpreter: interpreter)
      if !known.isEmpty {
        await conversation.explain("You can say \(Self.orList(known)) (or \"cancel\" to stop).")
      } else if refusals > 1 {
        await conversation.explain("Say \"cancel\" to stop.")
      }
    }
    for _ in 0..<maximumAttempts {
      let result = try await session.request(
        ResolveParameterRequest(intent: intent, parameter: parameter.name), phase: .resolve,
        what: "resolve of \(parameter.name)")
      switch result.kind {
      case .success:
        return result.value ?? intent[parameter.name]
      case .notRequired:
        return intent[parameter.name]
      case .needsValue:
        // Asked again for a value the user gave: why first ("Sorry, Ascent can't use "swimming"."), then what the
        // app knows.
        if let given = intent[parameter.name] {
          await conversation.explain(
            "Sorry, \(appName) can't use \"\(interpreter.words(for: given, parameterType: types(parameter)))\".")
          await hint()
        }
        intent[parameter.name] = try await askValue(for: parameter, of: intent, interpreter: interpreter, need: need)
      case .unsupported:
        let template = result.reason.flatMap { parameter.unsupportedReasons[$0] }.flatMap { $0.isEmpty ? nil : $0 }
        await conversation.explain(
          template.map { fill($0, parameter: parameter, intent: intent, interpreter: interpreter) }
            ?? result.message ?? "Sorry, that \(parameter.label.lowercased()) can't be used.")
        await hint()
        intent[parameter.name] = try await askValue(for: parameter, of: intent, interpreter: interpreter, need: need)
      case .disambiguation:
        let candidates = result.candidates ?? []
        guard !candidates.isEmpty else {
          throw session.violation("asked to disambiguate \(parameter.name) between no candidates")
        }
        if !history.disambiguated.contains(parameter.name) { history.disambiguated.append(parameter.name) }
        intent[parameter.name] = try await choose(
          among: candidates, for: parameter, intent: intent, interpreter: interpreter, need: need)
      case .confirmationRequired:
        guard let value = result.value ?? intent[parameter.name] else {
          intent[parameter.name] = try await askValue(for: parameter, of: intent, interpreter: interpreter, need: need)
          continue
        }
        if !history.confirmed.contains(parameter.name) { history.confirmed.append(parameter.name) }
        var shown = intent
        shown[parameter.name] = value
        let template =
          interpreter.variant(of: parameter.prompt("Confirmation"), for: value, parameter: parameter)
          ?? parameter.prompts["Confirmation"]
        let prompt =
          template.map {
            fill($0, parameter: parameter, intent: shown, interpreter: interpreter)
          } ?? "Just to confirm, you wanted \(interpreter.words(for: value, parameterType: types(parameter)))?"
        switch try await confirm(prompt, of: parameter, interpreter: interpreter, need: "a confirmation of \(need)") {
        case .yes: return value
        case .no:
          intent[parameter.name] = try await askValue(
            for: parameter, of: intent, interpreter: interpreter, need: need)
        case .instead(let other):
          intent[parameter.name] = other  // resolved again
        }
      }
    }
    throw HostError(
      .valueNeeded, "\(need) was still not accepted after \(maximumAttempts) tries; the assistant gave up")
  }

  func types(_ parameter: ParameterSpec) -> (String?, String?, String?) {
    (parameter.trueDisplayName, parameter.falseDisplayName, parameter.enumType)
  }

  func fill(_ template: String, parameter: ParameterSpec, intent: Intent, interpreter: ValueInterpreter)
    -> String
  {
    // A name the definition does not declare (`template-unknown-name`, `template-misspelt-name`) is said as
    // written, never as nothing.
    let declared = interpreter.definition?.intent(named: interpreter.intentClass).map { Set($0.parameters.map(\.name)) }
    return renderTemplate(template) { name in
      if name == "displayName" { return parameter.label }
      if name == "minimumValue" { return parameter.minimumValue.map { interpreter.words(for: .decimal($0)) } }
      if name == "maximumValue" { return parameter.maximumValue.map { interpreter.words(for: .decimal($0)) } }
      let head = String(name.split(separator: ".").first ?? Substring(name))
      if let value = intent[head] { return interpreter.words(for: value, parameterType: types(parameter)) }
      if let declared, !declared.contains(head), name != "count" { return "${\(name)}" }
      return nil
    }.text
  }

  /// What the user meant at a value's confirmation ("Just to confirm, you wanted wall climb?").
  enum ConfirmationAnswer {
    case yes, no
    /// Another value of the parameter ("boulder climb"): taken as the value, and resolved again, as Siri does.
    case instead(ParameterValue)
  }

  /// Asks to confirm a parameter's value: yes or no in any supported language; "cancel" ends the intent (unless it is
  /// a value the parameter is said with); any other answer that is a value of the parameter (for text, any text) is
  /// the value meant instead; one that is none of these gets "Please answer yes or no." once, and is then a no.
  /// - Throws: `CancelledByUser`, or what `Conversation.ask` throws.
  func confirm(_ prompt: String, of parameter: ParameterSpec, interpreter: ValueInterpreter, need: String)
    async throws -> ConfirmationAnswer
  {
    for attempt in 0..<2 {
      let answer = try await conversation.ask(prompt, need: need, kind: .yesNo)
      let spoken = interpreter.spokenValue(answer, for: parameter)
      if SpokenAnswer.isCancel(answer), spoken == nil { throw CancelledByUser() }
      if let meant = SpokenAnswer.yesNo(answer) { return meant ? .yes : .no }
      if let other = spoken ?? interpreter.parse(answer, for: parameter) { return .instead(other) }
      if attempt == 0 { await conversation.explain(Self.pleaseAnswerYesOrNo) }
    }
    return .no
  }

  /// The words the app knows for `parameter`, to say after a value it did not take: the items of its
  /// `AppIntentVocabulary` `ParameterVocabularies` for the parameter (each by its first phrase), in the file's order,
  /// then the terms the app registered for the user (`UserVocabulary`) of the parameter's vocabulary types; each
  /// once, at most `maximumHintTerms`.
  func knownTerms(for parameter: ParameterSpec, of app: AppBundle, interpreter: ValueInterpreter) async -> [String] {
    var terms: [String] = []
    var seen: Set<[String]> = []
    func add(_ term: String) {
      let words = normalizedWords(term)
      if !words.isEmpty, seen.insert(words).inserted { terms.append(term) }
    }
    let key = "\(interpreter.intentClass).\(parameter.name)"
    for vocabulary in interpreter.vocabularies {
      for item in vocabulary.items where item.parameterNames.contains(key) {
        add(item.synonyms.first?.phrase ?? item.identifier)
      }
    }
    let types = UserVocabulary.types(of: parameter, intentClass: interpreter.intentClass)
    if !types.isEmpty {
      // A document that cannot be read is reported where the matcher reads it; here it only shortens the hint.
      let registered = await offloaded { DonationStore(home: home).userVocabularies(of: [app]).vocabularies }
      for type in types { for term in registered[app.identifier.rawValue]?.terms[type] ?? [] { add(term) } }
    }
    return Array(terms.prefix(Self.maximumHintTerms))
  }

  /// The most terms a hint lists.
  static let maximumHintTerms = 8

  /// "a", "a or b", "a, b or c".
  static func orList(_ items: [String]) -> String {
    items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
  }

  func askValue(
    for parameter: ParameterSpec, of intent: Intent, interpreter: ValueInterpreter, need: String
  ) async throws -> ParameterValue {
    // The definition's prompt, its ${displayName}, bounds and other parameters' values filled as in every prompt.
    let prompt =
      parameter.prompts["Primary"].map { fill($0, parameter: parameter, intent: intent, interpreter: interpreter) }
      ?? "What's the \(parameter.label.lowercased())?"
    for _ in 0..<maximumAttempts {
      let answer = try await conversation.ask(prompt, need: need, kind: .value)
      // "cancel" ends the intent, unless it is a value the parameter is said with (Rooms' "cancel" booking).
      if SpokenAnswer.isCancel(answer), interpreter.spokenValue(answer, for: parameter) == nil {
        throw CancelledByUser()
      }
      if let value = interpreter.parse(answer, for: parameter) { return value }
      // The parameter as every other message names it: its display name as written ("Quantity (quantity) for
      // Pantry is needed", "Room number (Integer) needs a whole number").
      await conversation.explain("Sorry, \(parameter.label) needs \(interpreter.expectation(for: parameter)).")
    }
    throw HostError(.valueNeeded, "no usable answer for \(need) after \(maximumAttempts) tries")
  }

  func choose(
    among candidates: [ParameterValue], for parameter: ParameterSpec, intent: Intent,
    interpreter: ValueInterpreter, need: String
  ) async throws -> ParameterValue {
    var context = intent
    context[parameter.name] = nil
    let introduction =
      parameter.prompts["DisambiguationIntroduction"].map {
        renderTemplate($0) { $0 == "count" ? String(candidates.count) : nil }.text
      } ?? "Which \(parameter.label.lowercased())?"
    await conversation.explain(introduction)
    let names = candidates.map { interpreter.words(for: $0, parameterType: types(parameter)) }
    // One line per candidate: a line break in a name is shown escaped, not as a line of its own.
    for (index, name) in names.enumerated() { await conversation.explain("  \(index + 1). \(Untrusted.shown(name))") }
    for _ in 0..<maximumAttempts {
      let answer = try await conversation.ask(Self.choosePrompt(candidates.count), need: need, kind: .choice)
        .trimmingCharacters(in: .whitespaces)
      if let number = Int(answer), candidates.indices.contains(number - 1) { return candidates[number - 1] }
      if let index = names.firstIndex(where: { $0.caseInsensitiveCompare(answer) == .orderedSame }) {
        return candidates[index]
      }
      if SpokenAnswer.isCancel(answer) { throw CancelledByUser() }
      await conversation.explain("Please answer with \(Self.numbers(candidates.count)) or one of the names.")
    }
    throw HostError(.valueNeeded, "no choice made for \(need) after \(maximumAttempts) tries")
  }
}
