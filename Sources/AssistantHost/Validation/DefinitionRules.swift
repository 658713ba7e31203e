import BundleManifest
import Foundation
import NameSuggestions
import Understanding

extension Validator {
  /// The rules of a project's definitions: each on its own (`definitionRules(_:)`), then `duplicate-definition`
  /// across files, an error when the copies differ in parameters or response codes.
  /// - Returns: the findings, and each class name with its first definition and the file that holds it.
  func definitionRules(
    across definitions: [IntentDefinition]
  ) -> (diagnostics: [Diagnostic], definedAt: [String: (IntentSpec, String)]) {
    var diagnostics: [Diagnostic] = []
    var definedAt: [String: (IntentSpec, String)] = [:]
    for definition in definitions {
      diagnostics += definitionRules(definition)
      for intent in definition.intents {
        if let (earlier, file) = definedAt[intent.className] {
          let conflicting =
            earlier.parameters.map(\.name) != intent.parameters.map(\.name)
            || earlier.response?.codes.map(\.name) != intent.response?.codes.map(\.name)
          diagnostics.append(
            Diagnostic(
              conflicting ? .error : .warning, .duplicateDefinition, file: definition.file,
              keyPath: "INIntents[\(intent.name)]",
              "defines \(intent.className) again (also in \(file))"
                + (conflicting ? " with other parameters or response codes" : ""),
              fix: "keep one definition of each intent: remove it from one of the files (targets can share one)"))
        } else {
          definedAt[intent.className] = (intent, definition.file)
        }
      }
    }
    return (diagnostics, definedAt)
  }

  /// The rules within one intent definition.
  func definitionRules(_ definition: IntentDefinition) -> [Diagnostic] {
    var diagnostics = definition.diagnostics
    let file = definition.file
    let synthetic: Set<String> = ["count", "displayName", "minimumValue", "maximumValue"]
    var classNames = Set<String>()
    for (index, intent) in definition.intents.enumerated() {
      let at = "INIntents[\(index)] (\(intent.name))"
      if !classNames.insert(intent.className).inserted {
        diagnostics.append(
          Diagnostic(
            .error, .duplicateDefinition, file: file, keyPath: at, "defines \(intent.className) twice",
            fix: "remove one of them"))
      }
      var names = Set<String>()
      let parameterNames = Set(intent.parameters.map(\.name))
      for parameter in intent.parameters {
        let here = "\(at).\(parameter.name)"
        if !names.insert(parameter.name).inserted {
          diagnostics.append(
            Diagnostic(.error, .duplicateParameter, file: file, keyPath: here, "is defined twice", fix: "rename one"))
        }
        if let enumType = parameter.enumType, parameter.enumNamespace != "System",
          definition.enumeration(named: enumType) == nil
        {
          diagnostics.append(
            Diagnostic(
              .error, .enumUndefined, file: file, keyPath: "\(here).INIntentParameterEnumType",
              "names the enum \(enumType), which INEnums does not define",
              fix: "define \(enumType) or pick another enum"))
        }
        if let objectType = parameter.objectType, parameter.objectNamespace != "System",
          definition.type(named: objectType) == nil
        {
          diagnostics.append(
            Diagnostic(
              .error, .typeUndefined, file: file, keyPath: "\(here).INIntentParameterObjectType",
              "names the type \(objectType), which INTypes does not define", fix: "define \(objectType) in INTypes"))
        }
        if let relationship = parameter.relationship {
          if let parent = intent.parameter(named: relationship.parent) {
            if let value = relationship.value, let enumType = parent.enumType,
              let enumeration = EnumSpec.named(enumType, in: definition),
              !enumeration.values.contains(where: { $0.name == value })
            {
              diagnostics.append(
                Diagnostic(
                  .error, .relationshipValue, file: file, keyPath: "\(here).INIntentParameterRelationship",
                  "depends on \(parent.name) being \"\(value)\", which is not a case of \(enumType)",
                  fix: "use one of \(enumeration.values.map(\.name).joined(separator: ", "))"))
            }
          } else {
            diagnostics.append(
              Diagnostic(
                .error, .relationshipParent, file: file, keyPath: "\(here).INIntentParameterRelationship",
                "depends on \"\(relationship.parent)\", which is not a parameter of \(intent.name)",
                fix: "name one of \(intent.parameters.map(\.name).joined(separator: ", "))"))
          }
        }
        for prompt in parameter.promptDialogs {
          for name in placeholders(prompt.text ?? "") where !parameterNames.contains(name) && !synthetic.contains(name)
          {
            let keyPath = "\(here) \(prompt.type) prompt"
            let known = intent.parameters.map(\.name)
            if let meant = Self.meantName(name, among: known) {
              diagnostics.append(
                Diagnostic(
                  .error, .templateMisspeltName, file: file, keyPath: keyPath,
                  "refers to ${\(name)}, which is not a parameter of \(intent.name)",
                  fix: "did you mean ${\(meant)}? Write ${\(meant)} in the prompt"))
            } else {
              diagnostics.append(
                Diagnostic(
                  .warning, .templateUnknownName, file: file, keyPath: keyPath,
                  "refers to ${\(name)}, which is not a parameter of \(intent.name)",
                  fix: "use one of \(known.map { "${\($0)}" }.joined(separator: ", "))"))
            }
          }
        }
      }
      for combination in intent.combinations + intent.managedCombinations {
        for name in combination.parameters where !parameterNames.contains(name) {
          diagnostics.append(
            Diagnostic(
              .error, .combinationUnknownParameter, file: file,
              keyPath: "\(at).INIntentParameterCombinations[\"\(combination.key)\"]",
              "names \(name), which is not a parameter of \(intent.name)",
              fix: "remove it from the combination, or add the parameter"))
        }
      }
      if let response = intent.response {
        let codes = Set(response.codes.map(\.name))
        if !intent.isSystem && !(codes.contains("success") && codes.contains("failure")) {
          diagnostics.append(
            Diagnostic(
              .warning, .responseCodes, file: file, keyPath: "\(at).INIntentResponse.INIntentResponseCodes",
              "lacks \(codes.contains("success") ? "failure" : "success"); Xcode gives every custom intent both",
              fix: "add the success and failure codes"))
        }
        let responseNames = Set(response.parameters.map(\.name))
        for code in response.codes {
          for template in [code.template, code.conciseTemplate].compactMap({ $0 }) {
            for name in placeholders(template) where !responseNames.contains(Self.head(of: name)) {
              let keyPath = "\(at).INIntentResponse.\(code.name)"
              let head = Self.head(of: name)
              if let meant = Self.meantName(head, among: response.parameters.map(\.name)) {
                let corrected = meant + name.dropFirst(head.count)
                diagnostics.append(
                  Diagnostic(
                    .error, .templateMisspeltName, file: file, keyPath: keyPath,
                    "refers to ${\(name)}, which is not a response parameter (templates use response parameters)",
                    fix: "did you mean ${\(corrected)}? Write ${\(corrected)} in the template"))
              } else {
                diagnostics.append(
                  Diagnostic(
                    .warning, .templateUnknownName, file: file, keyPath: keyPath,
                    "refers to ${\(name)}, which is not a response parameter (templates use response parameters)",
                    fix: "add a response parameter \(head) and set it in handle"))
              }
            }
          }
        }
      } else if !intent.isSystem {
        diagnostics.append(
          Diagnostic(
            .warning, .responseCodes, file: file, keyPath: at, "has no INIntentResponse",
            fix: "add INIntentResponse with INIntentResponseCodes success and failure"))
      }
    }
    return diagnostics
  }

  /// The first name of a template placeholder: the parameter (`orderDetails` of `${orderDetails.total}`).
  static func head(of name: String) -> String { String(name.split(separator: ".").first ?? Substring(name)) }

  /// The name of `names` that `name`, a placeholder naming none of them, most likely means: one edit away for a
  /// name of up to four letters, two for a longer one (`sise` means `size`); nil when none is that close.
  static func meantName(_ name: String, among names: [String]) -> String? {
    closestNames(to: name, among: names, maximumEdits: name.count <= 4 ? 1 : 2).first
  }
}
