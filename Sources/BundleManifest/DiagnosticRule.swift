import AppIntentsMetadata

extension Diagnostic {
  /// The rule a finding breaks, by the stable name `assistant validate` prints in brackets and `--json` gives as
  /// `rule` (the raw value). docs/VALIDATION.md lists every rule with its severity and what it checks; a test keeps
  /// the two lists equal.
  public enum Rule: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    // Paths and files.

    /// The path given to `validate` or `install` exists (exit 66 when it does not).
    case fileMissing = "file-missing"
    /// A source folder holds at least one manifest, by name or by content.
    case nothingToValidate = "nothing-to-validate"
    /// A property list given on its own is a manifest, by its name or by its content.
    case unknownFile = "unknown-file"
    /// The file parses, its root is a dictionary, each key has the type Apple uses.
    case plist
    /// A key is not a likely misspelling of one the model reads (that key is then absent).
    case keyMisspelt = "key-misspelt"

    // Build settings and the names in Info.plist and entitlements.

    /// An Info.plist without `CFBundleIdentifier` takes `PRODUCT_BUNDLE_IDENTIFIER`.
    case bundleIDFromSettings = "bundle-id-from-settings"
    /// An Info.plist without `CFBundleExecutable` takes `EXECUTABLE_NAME`.
    case executableFromSettings = "executable-from-settings"
    /// Every `$(NAME)`/`${NAME}` has a value.
    case buildSettingUnresolved = "build-setting-unresolved"
    /// `CFBundleIdentifier` is given or implied.
    case bundleIDMissing = "bundle-id-missing"
    /// `CFBundleExecutable` is given or implied.
    case executableMissing = "executable-missing"
    /// `CFBundleIdentifier` follows the grammar of bundle identifiers.
    case bundleIDSyntax = "bundle-id-syntax"
    /// `CFBundleExecutable` is one safe file name, not a path.
    case executableName = "executable-name"
    /// The `.app` and each `.appex` folder name is one safe file name.
    case bundleFolderName = "bundle-folder-name"
    /// An extension's identifier is its app's plus exactly one component.
    case bundleIDPrefix = "bundle-id-prefix"
    /// `com.apple.developer.team-identifier` is well formed, and an extension's is none or the app's.
    case teamIdentifier = "team-identifier"
    /// Each `com.apple.security.application-groups` entry follows the grammar of group identifiers.
    case appGroupIdentifier = "app-group-identifier"

    // The bundle and its executables.

    /// A bundle holds only regular files and folders.
    case bundleFileKind = "bundle-file-kind"
    /// The named executable is in the bundle.
    case executableMissingFile = "executable-missing-file"
    /// The named executable is a file, not a folder, and executable.
    case executableNotExecutable = "executable-not-executable"
    /// The executable is a file of the bundle, not a link to a file elsewhere.
    case executableOutsideBundle = "executable-outside-bundle"
    /// An executable's `PT_INTERP` lies in the system library folders.
    case elfInterpreter = "elf-interpreter"
    /// Each `DT_RUNPATH`/`DT_RPATH` folder lies in the trusted library folders or the app bundle.
    case elfRunpath = "elf-runpath"
    /// Each `DT_NEEDED` given as a path lies in the trusted library folders or the app bundle.
    case elfNeeded = "elf-needed"
    /// A script's `#!` line names an interpreter the sandbox can run.
    case scriptInterpreter = "script-interpreter"
    /// `CFBundlePackageType` is `APPL` for an app, `XPC!` for an extension.
    case packageType = "package-type"

    // Info.plist and the intents it lists.

    /// `NSExtensionPointIdentifier` is given.
    case extensionPointMissing = "extension-point-missing"
    /// `NSExtensionPointIdentifier` is an extension point IntentHost runs.
    case extensionPointUnknown = "extension-point-unknown"
    /// The restriction lists name intents that are supported.
    case restrictedNotSupported = "restricted-not-supported"
    /// Every supported intent is defined by a definition of the app, or is a system intent.
    case intentUndefined = "intent-undefined"
    /// No intent is listed by two Intents extensions of one app.
    case intentSupportedTwice = "intent-supported-twice"
    /// No intent is listed twice in one `IntentsSupported`.
    case intentListedTwice = "intent-listed-twice"
    /// An Intents UI extension only lists intents an Intents extension (or the app) handles.
    case uiExtensionUnhandledIntent = "ui-extension-unhandled-intent"
    /// An app with Intents extensions has `NSSiriUsageDescription`.
    case siriUsageDescription = "siri-usage-description"

    // Entitlements and the sandbox's exceptions.

    /// Each read-only exception path is well formed and reaches nothing the sandbox protects.
    case entitlementReadOnlyPath = "entitlement-read-only-path"
    /// Each read-only exception path exists on this host.
    case entitlementReadOnlyPathMissing = "entitlement-read-only-path-missing"
    /// Each `com.apple.security.` key is one the sandbox reads or one of Apple's.
    case entitlementUnknown = "entitlement-unknown"
    /// Apple's sandbox and hardened-runtime keys that mean nothing on Linux.
    case entitlementUnsupported = "entitlement-unsupported"
    /// An extension's app group is also the app's.
    case appGroupNotShared = "app-group-not-shared"
    /// No app group of an app's entitlements is a likely misspelling of one another file of the app lists.
    case appGroupMisspelt = "app-group-misspelt"

    // Vocabularies and phrases.

    /// Every intent of an Intents extension has example phrases.
    case intentPhrasesMissing = "intent-phrases-missing"
    /// Phrases are for intents the app handles.
    case vocabularyUnknownIntent = "vocabulary-unknown-intent"
    /// Every example phrase and combination title reaches its own intent, with the values it names.
    case intentPhraseUnreachable = "intent-phrase-unreachable"
    /// No phrase matches two intents equally well.
    case intentPhraseClaimedTwice = "intent-phrase-claimed-twice"
    /// A phrase said as written does not take a text value from its own words that it likely does not mean.
    case phraseReadsText = "phrase-reads-text"
    /// No word of an example phrase is one edit from a value of its intent's parameters (a case or a synonym).
    case intentPhraseMisspeltValue = "intent-phrase-misspelt-value"
    /// An example phrase has at most `UtteranceMatcher.maximumExampleWords` words.
    case intentPhraseTooLong = "intent-phrase-too-long"
    /// An app has at most `UtteranceMatcher.maximumExamples` example phrases.
    case intentPhrasesTooMany = "intent-phrases-too-many"
    /// No installed app answers to a name of this one (at `install` only).
    case appNameShared = "app-name-shared"
    /// A vocabulary has some phrase or parameter vocabulary.
    case vocabularyEmpty = "vocabulary-empty"

    // Intent definitions.

    /// Each intent class is defined once.
    case duplicateDefinition = "duplicate-definition"
    /// Parameter names are unique within an intent.
    case duplicateParameter = "duplicate-parameter"
    /// `INIntentParameterEnumType` names an enum of the file (or the `System` namespace).
    case enumUndefined = "enum-undefined"
    /// `INIntentParameterObjectType` names a type of the file (or the `System` namespace).
    case typeUndefined = "type-undefined"
    /// A parameter relationship names a parameter of the intent.
    case relationshipParent = "relationship-parent"
    /// A parameter relationship names a case of its parent's enum.
    case relationshipValue = "relationship-value"
    /// Parameter combinations name parameters of the intent.
    case combinationUnknownParameter = "combination-unknown-parameter"
    /// `${name}` in a prompt or response template names a parameter it can read.
    case templateUnknownName = "template-unknown-name"
    /// A `${name}` in a prompt or response template is not one or two edits from a parameter it can read.
    case templateMisspeltName = "template-misspelt-name"
    /// A custom intent has a response with `success` and `failure`.
    case responseCodes = "response-codes"

    // Localization.

    /// A `<lang>.lproj/*.strings` key matches an ID of the definitions.
    case stringsStaleKey = "strings-stale-key"
    /// A `<lang>.lproj/NAME.strings` table has a key for every text of `NAME.intentdefinition`.
    case stringsMissingKey = "strings-missing-key"

    // App Intents (`Metadata.appintents` and `AppShortcuts.strings`; AppIntentsMetadata's `MetadataRule`).

    /// `extract.actionsdata` and `version.json` parse: JSON within the limits, keys of Xcode's types, identifiers.
    case appIntentsMetadata = "app-intents-metadata"
    /// A key, value type or primitive type the reader does not read.
    case appIntentsUnknownKey = "app-intents-unknown-key"
    /// `version` is the one IntentHost knows.
    case appIntentsVersion = "app-intents-version"
    /// Every App Shortcut phrase has exactly one `${applicationName}`.
    case appShortcutUtterance = "app-shortcut-utterance"
    /// Every App Shortcut has a phrase.
    case appShortcutPhraseMissing = "app-shortcut-phrase-missing"
    /// A phrase's parameter is an `AppEntity` or `AppEnum` parameter.
    case appShortcutParameterType = "app-shortcut-parameter-type"
    /// A phrase's parameter is a parameter of the shortcut's intent.
    case appShortcutParameterUnknown = "app-shortcut-parameter-unknown"
    /// A phrase has at most one parameter.
    case appShortcutParameterCount = "app-shortcut-parameter-count"
    /// An app has at most 10 App Shortcuts.
    case appShortcutsTooMany = "app-shortcuts-too-many"
    /// An App Shortcut's `actionIdentifier` names an action.
    case appShortcutActionUnknown = "app-shortcut-action-unknown"
    /// A bundle has one set of `AppShortcuts.strings` tables, one per language.
    case appShortcutsStringsFiles = "app-shortcuts-strings-files"
    /// An entity's `defaultQueryIdentifier` names a query.
    case appIntentsDefaultQuery = "app-intents-default-query"
    /// Actions, parameters, properties, entities, enums and enum cases have a title.
    case appIntentsTitleMissing = "app-intents-title-missing"
    /// Enum identifiers are unique, and case identifiers within an enum.
    case appIntentsDuplicateIdentifier = "app-intents-duplicate-identifier"
    /// An enum parameter's default is a case of its enum.
    case appIntentsDefaultValue = "app-intents-default-value"
    /// Two actions of a file do not have the same title.
    case appIntentsDuplicateTitle = "app-intents-duplicate-title"
    /// A parameter's or property's `AppEntity` or `AppEnum` is one the file defines.
    case appIntentsTypeUnknown = "app-intents-type-unknown"
    /// Apple's closing line after App Intents errors.
    case appIntentsHaltingError = "app-intents-halting-error"
    /// An App Intents extension has a `Metadata.appintents`.
    case appIntentsExtensionEmpty = "app-intents-extension-empty"
    /// Only one `Metadata.appintents` of an app declares App Shortcuts.
    case appShortcutsProviderTwice = "app-shortcuts-provider-twice"
    /// An App Intent is declared in one `Metadata.appintents` of an app (its own, or one extension's).
    case appIntentsActionTwice = "app-intents-action-twice"

    /// The rule's name, as `assistant validate` prints it: the raw value.
    public var description: String { rawValue }
  }
}

extension Diagnostic.Rule {
  /// The rule of an App Intents finding: the same name.
  public init(_ rule: MetadataRule) {
    switch rule {
    case .metadata: self = .appIntentsMetadata
    case .unknownKey: self = .appIntentsUnknownKey
    case .version: self = .appIntentsVersion
    case .utterance: self = .appShortcutUtterance
    case .phraseMissing: self = .appShortcutPhraseMissing
    case .parameterType: self = .appShortcutParameterType
    case .parameterUnknown: self = .appShortcutParameterUnknown
    case .parameterCount: self = .appShortcutParameterCount
    case .tooManyShortcuts: self = .appShortcutsTooMany
    case .actionUnknown: self = .appShortcutActionUnknown
    case .stringsFiles: self = .appShortcutsStringsFiles
    case .defaultQuery: self = .appIntentsDefaultQuery
    case .titleMissing: self = .appIntentsTitleMissing
    case .duplicateIdentifier: self = .appIntentsDuplicateIdentifier
    case .defaultValue: self = .appIntentsDefaultValue
    case .typeUnknown: self = .appIntentsTypeUnknown
    case .duplicateTitle: self = .appIntentsDuplicateTitle
    case .haltingError: self = .appIntentsHaltingError
    }
  }
}
