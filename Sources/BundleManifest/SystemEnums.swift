/// Apple's enums that the parameters of the system intents in `SystemIntent.catalog` take (`INWorkoutGoalUnitType`,
/// `INWorkoutLocationType`, …): their cases, with Apple's case names and raw values, and the words people say for
/// each. A system intent's parameter names its enum in `ParameterSpec.enumType`, as a definition's parameter names
/// one of the definition's `INEnums`, and everything that reads enums finds it with `EnumSpec.named(_:in:)`. A value
/// goes on the wire as the case name (`.enumCase("minute")`), as a custom enum's does.
///
/// Sources: Apple's documentation of each enum (developer.apple.com/documentation/intents/<name>). Enums Apple
/// declares as option sets (`INMessageAttributeOptions`, the `attributes` of a message search) are not here: a
/// parameter that takes several flags at once is not an enum with one case.
public struct SystemEnum: Sendable, Equatable {
  /// The enum as a definition's enums are: its name, and its cases with their raw values (`index`) and, where the
  /// case name is not the word people use, a display name ("kilocalories" for `kiloCalorie`).
  public var spec: EnumSpec
  /// Case name to the other words people say for the case ("minutes", "min" for `minute`; "outside" for
  /// `outdoor`), beyond its name and display name. The case name in words ("call back" for `callBack`) is one.
  public var synonyms: [String: [String]]

  /// The system enum named `name` ("INWorkoutGoalUnitType"), or nil when IntentHost does not know it.
  public static func named(_ name: String) -> SystemEnum? { catalog[name] }

  /// Every known system enum, by name.
  public static let catalog: [String: SystemEnum] = {
    var table: [String: SystemEnum] = [:]
    /// Cases in raw-value order (the first is `unknown`, 0), each with its display name and its synonyms.
    func add(_ name: String, _ cases: [(name: String, display: String?, synonyms: [String])]) {
      let values = cases.enumerated().map { index, value in
        EnumSpec.Value(name: value.name, displayName: value.display, displayNameID: nil, index: index)
      }
      var synonyms: [String: [String]] = [:]
      for value in cases {
        let spelled = ParameterSpec.words(of: value.name)
        let extra = spelled.lowercased() == value.name.lowercased() ? [] : [spelled]
        if !(extra + value.synonyms).isEmpty { synonyms[value.name] = extra + value.synonyms }
      }
      table[name] = SystemEnum(spec: EnumSpec(systemName: name, values: values), synonyms: synonyms)
    }
    // Workouts
    add(
      "INWorkoutGoalUnitType",
      [
        ("unknown", nil, []), ("inch", nil, ["inches"]), ("meter", nil, ["meters", "metre", "metres"]),
        ("foot", nil, ["feet"]), ("mile", nil, ["miles"]), ("yard", nil, ["yards"]),
        ("second", nil, ["seconds", "sec", "secs"]), ("minute", nil, ["minutes", "min", "mins"]),
        ("hour", nil, ["hours", "hr", "hrs"]), ("joule", nil, ["joules"]),
        // A workout's "calories" are kilocalories (the Calories of food labels).
        ("kiloCalorie", "kilocalories", ["kilocalorie", "kcal", "calorie", "calories"]),
      ])
    add(
      "INWorkoutLocationType",
      [("unknown", nil, []), ("outdoor", nil, ["outdoors", "outside"]), ("indoor", nil, ["indoors", "inside"])])
    // Payments
    add(
      "INAccountType",
      [
        ("unknown", nil, []), ("checking", nil, ["checking account", "current account"]),
        ("credit", nil, ["credit card", "credit account"]), ("debit", nil, ["debit account", "debit card"]),
        ("investment", nil, ["investment account", "investments"]), ("mortgage", nil, ["mortgage account"]),
        ("prepaid", nil, ["prepaid account", "prepaid card"]),
        ("saving", "savings", ["savings account", "saving account"]),
      ])
    add(
      "INBalanceType",
      [("unknown", nil, []), ("money", nil, []), ("points", nil, ["reward points"]), ("miles", nil, ["air miles"])])
    // Messaging
    add(
      "INOutgoingMessageType",
      [
        ("unknown", nil, []), ("outgoingMessageText", "text message", ["text"]),
        ("outgoingMessageAudio", "audio message", ["audio", "voice message"]),
      ])
    add(
      "INMessageAttribute",
      [
        ("unknown", nil, []), ("read", nil, []), ("unread", nil, []), ("flagged", nil, []), ("unflagged", nil, []),
        ("played", nil, []),
      ])
    // Calls
    add(
      "INCallDestinationType",
      [
        ("unknown", nil, []), ("normal", nil, []), ("emergency", nil, ["emergency services"]),
        ("voicemail", nil, ["voice mail"]), ("redial", nil, []), ("callBack", "call back", []),
      ])
    add(
      "INCallAudioRoute",
      [
        ("unknown", nil, []), ("speakerphoneAudioRoute", "speakerphone", ["speaker"]),
        ("bluetoothAudioRoute", "bluetooth", []),
      ])
    add(
      "INCallCapability",
      [
        ("unknown", nil, []), ("audioCall", "audio call", ["audio", "voice call"]),
        ("videoCall", "video call", ["video"]),
      ])
    // Media
    add(
      "INPlaybackRepeatMode",
      [
        // "all", "one" and "none" alone are other words ("play all my songs"): said with "repeat".
        ("unknown", nil, []), ("none", "no repeat", ["repeat off"]), ("all", "repeat all", []),
        ("one", "repeat one", []),
      ])
    return table
  }()

  /// Each system intent parameter of type Enum, "Class.parameter", to the system enum it takes. A parameter left out
  /// (`INSearchForMessagesIntent.attributes`, an option set) has no enum type: any case name is taken as said.
  public static let parameterEnums: [String: String] = [
    "INStartWorkoutIntent.workoutGoalUnitType": "INWorkoutGoalUnitType",
    "INStartWorkoutIntent.workoutLocationType": "INWorkoutLocationType",
    "INSearchForAccountsIntent.accountType": "INAccountType",
    "INSearchForAccountsIntent.requestedBalanceType": "INBalanceType",
    "INSendMessageIntent.outgoingMessageType": "INOutgoingMessageType",
    "INSetMessageAttributeIntent.attribute": "INMessageAttribute",
    "INStartAudioCallIntent.destinationType": "INCallDestinationType",
    "INStartCallIntent.destinationType": "INCallDestinationType",
    "INStartCallIntent.audioRoute": "INCallAudioRoute",
    "INStartCallIntent.callCapability": "INCallCapability",
    "INPlayMediaIntent.playbackRepeatMode": "INPlaybackRepeatMode",
  ]
}

extension EnumSpec {
  /// The enum named `name` that a parameter of `definition` takes: one of the definition's `INEnums`, or else one of
  /// Apple's system enums (`SystemEnum.catalog`), for a system intent (which has no definition) or a definition's
  /// customised system intent. Nil when neither knows it.
  public static func named(_ name: String, in definition: IntentDefinition?) -> EnumSpec? {
    definition?.enumeration(named: name) ?? SystemEnum.named(name)?.spec
  }

  /// A system enum's spec.
  init(systemName: String, values: [Value]) {
    name = systemName
    displayName = nil
    displayNameID = nil
    self.values = values
  }
}
