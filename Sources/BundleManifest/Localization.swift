/// Translating an intent definition with a `<lang>.lproj/Intents.strings` table: every text whose `…ID` the table
/// has is replaced, the way iOS shows a definition in the user's language.
extension IntentDefinition {
  /// A copy with every translated text replaced; `variants` keeps the `ID-valueID` entries (a prompt worded for one
  /// enum or boolean value).
  public func localized(by table: [String: String]) -> IntentDefinition {
    guard !table.isEmpty else { return self }
    func text(_ base: String?, _ id: String?) -> String? { id.flatMap { table[$0] } ?? base }
    var copy = self
    copy.variants = table.filter { $0.key.contains("-") }
    copy.intents = intents.map { intent in
      var intent = intent
      intent.title = text(intent.title, intent.titleID)
      intent.description = text(intent.description, intent.descriptionID)
      intent.combinations = intent.combinations.map { combination in
        var combination = combination
        combination.title = text(combination.title, combination.titleID)
        combination.subtitle = text(combination.subtitle, combination.subtitleID)
        return combination
      }
      intent.parameters = intent.parameters.map { parameter in
        var parameter = parameter
        parameter.displayName = text(parameter.displayName, parameter.displayNameID)
        parameter.trueDisplayName = text(parameter.trueDisplayName, parameter.trueDisplayNameID)
        parameter.falseDisplayName = text(parameter.falseDisplayName, parameter.falseDisplayNameID)
        parameter.promptDialogs = parameter.promptDialogs.map { dialog in
          var dialog = dialog
          dialog.text = text(dialog.text, dialog.textID)
          return dialog
        }
        var prompts: [String: String] = [:]
        for dialog in parameter.promptDialogs where prompts[dialog.type] == nil {
          if let text = dialog.text { prompts[dialog.type] = text }
        }
        parameter.prompts = prompts
        parameter.unsupportedReasonSpecs = parameter.unsupportedReasonSpecs.map { reason in
          var reason = reason
          reason.text = text(reason.text, reason.textID)
          return reason
        }
        var reasons: [String: String] = [:]
        for reason in parameter.unsupportedReasonSpecs { reasons[reason.code] = reason.text ?? "" }
        parameter.unsupportedReasons = reasons
        return parameter
      }
      if var response = intent.response {
        response.codes = response.codes.map { code in
          var code = code
          code.template = text(code.template, code.templateID)
          code.conciseTemplate = text(code.conciseTemplate, code.conciseTemplateID)
          return code
        }
        response.parameters = response.parameters.map { parameter in
          var parameter = parameter
          parameter.displayName = text(parameter.displayName, parameter.displayNameID)
          return parameter
        }
        intent.response = response
      }
      return intent
    }
    copy.enums = enums.map { enumeration in
      var enumeration = enumeration
      enumeration.displayName = text(enumeration.displayName, enumeration.displayNameID)
      enumeration.values = enumeration.values.map { value in
        var value = value
        value.displayName = text(value.displayName, value.displayNameID)
        return value
      }
      return enumeration
    }
    return copy
  }
}

extension AppBundle {
  /// The strings of `locale` ("fr_FR" looks for fr_FR.lproj, fr-FR.lproj, then fr.lproj), merged; empty when the
  /// bundle has no translation for it (the definitions' own text is then used).
  public func strings(for locale: String) -> [String: String] {
    let normalized = locale.replacingOccurrences(of: "_", with: "-")
    let language = String(normalized.split(separator: "-").first ?? "")
    for candidate in [locale, normalized, language] {
      let tables = stringsTables.filter { $0.language.caseInsensitiveCompare(candidate) == .orderedSame }
      if !tables.isEmpty { return tables.reduce(into: [:]) { $0.merge($1.strings) { first, _ in first } } }
    }
    return [:]
  }

  /// A copy whose definitions (the app's and its extensions') speak `locale`.
  public func localized(for locale: String) -> AppBundle {
    let table = strings(for: locale)
    guard !table.isEmpty else { return self }
    var copy = self
    copy.definitions = definitions.map { $0.localized(by: table) }
    copy.extensions = extensions.map { ext in
      var ext = ext
      ext.definitions = ext.definitions.map { $0.localized(by: table) }
      return ext
    }
    return copy
  }
}
