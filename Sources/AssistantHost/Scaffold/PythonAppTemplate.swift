/// The Python flavour of `assistant new app NAME --language python`: the same bundles, manifests and app group as
/// `AppTemplate`, with each executable a python3 script in its bundle's folder beside the SDK's modules
/// (`intenthost.py` for the protocol, `appgroup.py` for the app group's documents, copied from the clone's
/// `docs/examples/python`), so `assistant build` only assembles: nothing is compiled.
///
/// ```
/// Coffee/Coffee/          Info.plist, Coffee.entitlements, Base.lproj/, coffee (the app), appgroup.py
/// Coffee/CoffeeIntents/   Info.plist, CoffeeIntents.entitlements, CoffeeIntents (the script), intenthost.py, appgroup.py
/// Coffee/CoffeeUI/        Info.plist, CoffeeUI (the script), intenthost.py
/// ```
package struct PythonAppTemplate: Sendable {
  package var base: AppTemplate
  /// The SDK's modules, by file name (`intenthost.py`, `appgroup.py`).
  package var modules: [String: String]

  package init(base: AppTemplate, modules: [String: String]) {
    self.base = base
    self.modules = modules
  }

  /// The SDK's module names, read from the clone's `docs/examples/python`.
  package static let moduleNames = ["intenthost.py", "appgroup.py"]

  var name: String { base.name }

  /// Every file: its path in the package and its contents.
  package var files: [(path: String, contents: String)] {
    let intents = "\(name)Intents", ui = "\(name)UI"
    return [
      ("README.md", readme),
      ("\(name)/Info.plist", base.appInfo.xmlDocument),
      ("\(name)/\(name).entitlements", base.entitlements.xmlDocument),
      ("\(name)/Base.lproj/Intents.intentdefinition", base.intent.definition.xmlDocument),
      ("\(name)/Base.lproj/AppIntentVocabulary.plist", base.vocabulary.xmlDocument),
      ("\(name)/\(base.lower)", appScript),
      ("\(name)/appgroup.py", modules["appgroup.py"] ?? ""),
      ("\(intents)/Info.plist", base.extensionInfo(ui: false).xmlDocument),
      ("\(intents)/\(intents).entitlements", base.entitlements.xmlDocument),
      ("\(intents)/\(intents)", extensionScript),
      ("\(intents)/intenthost.py", modules["intenthost.py"] ?? ""),
      ("\(intents)/appgroup.py", modules["appgroup.py"] ?? ""),
      ("\(ui)/Info.plist", base.extensionInfo(ui: true).xmlDocument),
      ("\(ui)/\(ui)", uiScript),
      ("\(ui)/intenthost.py", modules["intenthost.py"] ?? ""),
    ]
  }

  /// The files that are executables (mode 0755).
  package var executables: Set<String> {
    ["\(name)/\(base.lower)", "\(name)Intents/\(name)Intents", "\(name)UI/\(name)UI"]
  }

  var readme: String {
    """
    # \(name)

    An app for IntentHost in Python: `\(name)/` is the app, `\(name)Intents/` its Intents extension, `\(name)UI/` its
    Intents UI extension; each folder holds the bundle's manifests and its python3 script, beside the SDK's modules
    (`intenthost.py`, `appgroup.py`). They share the app group `\(base.group)`.

    ```sh
    assistant build --install               # assemble .build/bundles/\(name).app, validate, install (nothing to compile)
    assistant "\(base.samplePhrase)"
    assistant open \(name) -- list           # the app lists what was ordered
    assistant dev . "\(base.samplePhrase)"   # again on every change
    ```

    """
  }

  var parameterNames: String { base.intent.parameters.map { "\"\($0.name)\"" }.joined(separator: ", ") }

  var extensionScript: String {
    let resolvers = base.intent.parameters.map { parameter -> String in
      let empty: String
      switch parameter.kind {
      case .enumeration: empty = "given is None or given == \"unknown\""
      case .string: empty = "given is None or not given.strip()"
      default: empty = "given is None"
      }
      return """
            def resolve_\(parameter.name)(self, intent, context):
                given = value(intent, "\(parameter.name)")
                return intenthost.needs_value() if \(empty) else intenthost.success()
        """
    }.joined(separator: "\n\n")
    return """
      #!/usr/bin/env python3
      \"\"\"\(name)Intents: resolves and handles \(base.intentClass), and records each order in the app group
      \(base.group), where the \(name) app reads it.\"\"\"

      import sys

      sys.dont_write_bytecode = True  # the bundle is read-only in the sandbox: no __pycache__ beside the script

      import appgroup  # noqa: E402 (beside this script)
      import intenthost  # noqa: E402
      from intenthost import value  # noqa: E402

      GROUP = "\(base.group)"
      PARAMETERS = [\(parameterNames)]


      class \(base.intent.name):
      \(resolvers)

          def handle(self, intent, context):
              values = {name: value(intent, name) for name in PARAMETERS}
              if any(given is None for given in values.values()):
                  return intenthost.response("failure", {"reason": intenthost.string("a value is missing")})
              orders = appgroup.Document(context.app_groups[GROUP], "orders.json")
              orders.update(lambda content: {"orders": (content or {}).get("orders", []) + [
                  {name: str(given) for name, given in values.items()}]})
              return intenthost.response("success", dict(intent["parameters"]))


      if __name__ == "__main__":
          intenthost.serve(intents={"\(base.intentClass)": \(base.intent.name)()})

      """
  }

  var uiScript: String {
    let labels = base.intent.parameters.map { "(\"\($0.name)\", \"\($0.displayName)\")" }.joined(separator: ", ")
    return """
      #!/usr/bin/env python3
      \"\"\"\(name)UI: draws the card of \(base.intentClass) with the values it was given.\"\"\"

      import sys

      sys.dont_write_bytecode = True  # the bundle is read-only in the sandbox: no __pycache__ beside the script

      import intenthost  # noqa: E402 (beside this script)
      from intenthost import row, stack, text  # noqa: E402

      LABELS = [\(labels)]


      def configure_view(interaction, parameters, context):
          given = interaction["intent"].get("parameters", {})
          rows = [row(label, str(given[name]["value"])) for name, label in LABELS if name in given]
          return intenthost.view(stack(text("\(name)"), *rows), sorted(given))


      if __name__ == "__main__":
          intenthost.serve(configure_view=configure_view)

      """
  }

  var appScript: String {
    """
    #!/usr/bin/env python3
    \"\"\"\(base.lower): the \(name) app. `\(base.lower) list` prints the orders \(name)Intents recorded in the app group
    \(base.group). Launched by the assistant: `assistant open \(name) -- list`.\"\"\"

    import sys

    sys.dont_write_bytecode = True  # the bundle is read-only in the sandbox: no __pycache__ beside the script

    import appgroup  # noqa: E402 (beside this script)

    if sys.argv[1:] != ["list"]:
        print("usage: \(base.lower) list")
        sys.exit(0 if len(sys.argv) == 1 else 64)
    content, _ = appgroup.Document(appgroup.group_path("\(base.group)"), "orders.json").read()
    orders = (content or {}).get("orders", [])
    if not orders:
        print("No orders yet.")
    for order in orders:
        print(", ".join("%s: %s" % (key, order[key]) for key in sorted(order)))

    """
  }
}
