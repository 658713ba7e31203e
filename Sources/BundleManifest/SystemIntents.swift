/// Apple's system intents that IntentHost knows: their parameters, response codes, and whether Siri always asks
/// for an unlocked device before handing them to the extension (Apple's "Always requires unlocked device" column;
/// see ../shared/reference/apple-semantics.md, A3). Workouts, payments, messaging, calls, media, rides,
/// restaurant reservations, photos and car seats.
public struct SystemIntent: Sendable, Equatable {
  public var spec: IntentSpec
  public var domain: String
  /// Siri asks for the passcode before handling, whatever `IntentsRestrictedWhileLocked` says.
  public var alwaysRequiresUnlockedDevice: Bool
  /// Siri asks for the passcode before handling when resolving a parameter asked the user to choose or to confirm
  /// (Apple's rule for `INAppendToNoteIntent`); otherwise it is handled while locked.
  public var requiresUnlockedDeviceAfterQuestions = false

  /// What Siri asks before it hands the intent to the extension, when it always asks (payments, A1): "Do you want to
  /// send this payment?". nil for the intents Siri does not confirm, and for those whose question names their values
  /// (starting a workout: the host's `SystemDialogs`, code `ready`).
  public var confirmationPrompt: String? {
    switch spec.className {
    case "INSendPaymentIntent": "Do you want to send this payment?"
    case "INRequestPaymentIntent": "Do you want to request this payment?"
    default: nil
    }
  }

  /// The intent, or nil when it is not a system intent IntentHost knows.
  public static func named(_ className: String) -> SystemIntent? { catalog[className] }

  /// Every known system intent, by class name.
  public static let catalog: [String: SystemIntent] = {
    var table: [String: SystemIntent] = [:]
    func add(
      _ className: String, _ domain: String, unlock: Bool = false, unlockAfterQuestions: Bool = false,
      _ parameters: [(String, ParameterType, Bool)], codes: [String], successes: [String] = ["success"]
    ) {
      let standard = ["unspecified", "ready", "failure", "failureRequiringAppLaunch"]
      let all = standard + codes.filter { !standard.contains($0) }
      let spec = IntentSpec(
        systemClassName: className, domain: domain,
        parameters: parameters.map {
          var parameter = ParameterSpec(systemName: $0.0, type: $0.1, multiple: $0.2)
          // An Enum parameter's cases are Apple's (SystemEnums.swift).
          if let enumType = SystemEnum.parameterEnums["\(className).\($0.0)"] {
            parameter.enumType = enumType
            parameter.enumNamespace = "System"
          }
          // "Start an open-ended wall climb": the words that say true.
          if className == "INStartWorkoutIntent", $0.0 == "isOpenEnded" { parameter.trueDisplayName = "open-ended" }
          if let wording = systemParameterWording["\(className).\($0.0)"] ?? systemParameterWording[$0.0] {
            parameter.displayName = wording.label
            parameter.prompts["Primary"] = wording.prompt
            parameter.promptDialogs = [ParameterSpec.PromptDialog(type: "Primary", text: wording.prompt, textID: nil)]
          }
          return parameter
        },
        response: ResponseSpec(codes: all.map { ResponseCodeSpec(name: $0, isSuccess: successes.contains($0)) }))
      table[className] = SystemIntent(
        spec: spec, domain: domain, alwaysRequiresUnlockedDevice: unlock,
        requiresUnlockedDeviceAfterQuestions: unlockAfterQuestions)
    }
    let workout: [(String, ParameterType, Bool)] = [("workoutName", .speakableString, false)]
    let workoutCodes = ["continueInApp", "failureNoMatchingWorkout", "handleInApp", "success"]
    add(
      "INStartWorkoutIntent", "Workouts", unlock: true,
      workout + [
        ("goalValue", .decimal, false), ("workoutGoalUnitType", .enumeration, false),
        ("workoutLocationType", .enumeration, false), ("isOpenEnded", .boolean, false),
      ], codes: workoutCodes + ["failureOngoingWorkout"])
    add("INPauseWorkoutIntent", "Workouts", workout, codes: workoutCodes)
    add("INResumeWorkoutIntent", "Workouts", unlock: true, workout, codes: workoutCodes)
    add("INEndWorkoutIntent", "Workouts", workout, codes: workoutCodes)
    add("INCancelWorkoutIntent", "Workouts", workout, codes: workoutCodes)

    let paymentFailures = [
      "inProgress", "success", "failureCredentialsUnverified", "failurePaymentsAmountBelowMinimum",
      "failurePaymentsAmountAboveMaximum", "failurePaymentsCurrencyUnsupported", "failureNoBankAccount",
      "failureNotEligible", "failureTermsAndConditionsAcceptanceRequired",
    ]
    add(
      "INSendPaymentIntent", "Payments", unlock: true,
      [("payee", .person, false), ("currencyAmount", .currencyAmount, false), ("note", .string, false)],
      codes: paymentFailures + ["failureInsufficientFunds"])
    add(
      "INRequestPaymentIntent", "Payments", unlock: true,
      [("payer", .person, false), ("currencyAmount", .currencyAmount, false), ("note", .string, false)],
      codes: paymentFailures)
    add(
      "INSearchForAccountsIntent", "Payments",
      [
        ("accountNickname", .speakableString, false), ("accountType", .enumeration, false),
        ("organizationName", .speakableString, false), ("requestedBalanceType", .enumeration, false),
      ],
      codes: [
        "inProgress", "success", "failureCredentialsUnverified", "failureAccountNotFound",
        "failureTermsAndConditionsAcceptanceRequired", "failureNotEligible",
      ])
    add(
      "INTransferMoneyIntent", "Payments",
      [
        ("fromAccount", .paymentAccount, false), ("toAccount", .paymentAccount, false),
        ("transactionAmount", .paymentAmount, false), ("transactionScheduledDate", .dateComponentsRange, false),
        ("transactionNote", .string, false),
      ], codes: ["inProgress", "success", "failureCredentialsUnverified", "failureInsufficientFunds"])

    let messageFailures = [
      "inProgress", "success", "failureMessageServiceNotAvailable", "failureRequiringInAppAuthentication",
    ]
    add(
      "INSendMessageIntent", "Messaging",
      [
        ("recipients", .person, true), ("content", .string, false), ("speakableGroupName", .speakableString, false),
        ("outgoingMessageType", .enumeration, false), ("serviceName", .string, false), ("sender", .person, false),
      ], codes: messageFailures)
    add(
      "INSearchForMessagesIntent", "Messaging",
      [
        ("recipients", .person, true), ("senders", .person, true), ("searchTerms", .string, true),
        ("attributes", .enumeration, false), ("dateTimeRange", .dateComponentsRange, false),
        ("speakableGroupNames", .speakableString, true),
      ], codes: messageFailures + ["failureMessageTooManyResults"])
    add(
      "INSetMessageAttributeIntent", "Messaging", [("identifiers", .string, true), ("attribute", .enumeration, false)],
      codes: ["inProgress", "success", "failureMessageNotFound", "failureMessageAttributeNotSet"])

    // Notes (a deprecated domain, kept for Apple's one conditional lock rule).
    add(
      "INAppendToNoteIntent", "Notes", unlockAfterQuestions: true,
      [("targetNote", .note, false), ("content", .noteContent, false)],
      codes: ["inProgress", "success", "failureCannotUpdatePasswordProtectedNote"])

    let callFailures = [
      "continueInApp", "failureAppConfigurationRequired", "failureCallingServiceNotAvailable",
      "failureContactNotSupportedByApp",
    ]
    add(
      "INStartAudioCallIntent", "VoIP Calling",
      [("destinationType", .enumeration, false), ("contacts", .person, true)],
      codes: callFailures + ["failureNoValidNumber"], successes: [])
    add("INStartVideoCallIntent", "VoIP Calling", [("contacts", .person, true)], codes: callFailures, successes: [])
    add(
      "INStartCallIntent", "VoIP Calling",
      [
        ("audioRoute", .enumeration, false), ("destinationType", .enumeration, false), ("contacts", .person, true),
        ("callCapability", .enumeration, false),
      ],
      codes: callFailures + [
        "failureNoValidNumber", "failureAirplaneModeEnabled", "failureUnableToHandOff",
        "failureFaceTimeServiceNotAvailable", "failureCallInProgress", "failureRequiringInAppAuthentication",
      ], successes: [])

    add(
      "INPlayMediaIntent", "Media",
      [
        ("mediaItems", .mediaItem, true), ("mediaContainer", .mediaItem, false), ("playShuffled", .boolean, false),
        ("playbackRepeatMode", .enumeration, false), ("resumePlayback", .boolean, false),
        ("playbackSpeed", .decimal, false), ("mediaSearch", .mediaSearch, false),
      ],
      codes: [
        "continueInApp", "inProgress", "success", "handleInApp", "failureUnknownMediaType",
        "failureNoUnplayedContent", "failureRestrictedContent", "failureMaxStreamLimitReached",
      ])
    add(
      "INSearchForPhotosIntent", "Photos", unlock: true,
      [("dateCreated", .dateComponentsRange, false), ("searchTerms", .string, true), ("albumName", .string, false)],
      codes: ["continueInApp", "failureAppConfigurationRequired"], successes: [])
    add(
      "INRequestRideIntent", "Ride Booking", unlock: true,
      [
        ("pickupLocation", .placemark, false), ("dropOffLocation", .placemark, false),
        ("rideOptionName", .speakableString, false), ("partySize", .integer, false),
      ],
      codes: [
        "inProgress", "success", "failureRequiringAppLaunchMustVerifyCredentials",
        "failureRequiringAppLaunchNoServiceInArea",
      ])
    add(
      "INGetRideStatusIntent", "Ride Booking", [],
      codes: ["inProgress", "success", "failureRequiringAppLaunchMustVerifyCredentials"])
    add(
      "INSendRideFeedbackIntent", "Ride Booking", unlock: true,
      [("rideIdentifier", .string, false), ("rating", .integer, false), ("tip", .currencyAmount, false)],
      codes: ["success"])
    add(
      "INBookRestaurantReservationIntent", "Restaurant Reservations", unlock: true,
      [
        ("restaurant", .restaurant, false), ("bookingDateComponents", .dateComponents, false),
        ("partySize", .integer, false),
      ],
      codes: [
        "success", "denied", "failureRequiringAppLaunchMustVerifyCredentials",
        "failureRequiringAppLaunchServiceTemporarilyUnavailable",
      ])
    add(
      "INSetSeatSettingsInCarIntent", "CarPlay", unlock: true,
      [
        ("enableHeating", .boolean, false), ("enableCooling", .boolean, false), ("level", .integer, false),
        ("carName", .speakableString, false),
      ],
      codes: ["inProgress", "success"])
    return table
  }()
}

/// How each parameter of the catalog is named and asked for, in the words Siri uses: its label (the parameter's
/// display name) and its primary prompt. Keyed by parameter name, or by "Class.parameter" where one intent's wording
/// differs from the others' (the recipients of a message search are not asked for as a message's).
let systemParameterWording: [String: (label: String, prompt: String)] = [
  // Workouts
  "workoutName": ("Workout", "What kind of workout?"),
  "goalValue": ("Goal", "What's your goal?"),
  "workoutGoalUnitType": ("Goal unit", "In what unit?"),
  "workoutLocationType": ("Location", "Indoor or outdoor?"),
  "isOpenEnded": ("Open-ended", "Is it open-ended?"),
  // Payments
  "payee": ("Payee", "Who do you want to pay?"),
  "payer": ("Payer", "Who do you want to request money from?"),
  "currencyAmount": ("Amount", "How much?"),
  "note": ("Note", "What's it for?"),
  "accountNickname": ("Account", "Which account?"),
  "accountType": ("Account type", "What type of account?"),
  "organizationName": ("Organization", "Which bank or organization?"),
  "requestedBalanceType": ("Balance", "Which balance?"),
  "fromAccount": ("From account", "Which account do you want to transfer from?"),
  "toAccount": ("To account", "Which account do you want to transfer to?"),
  "transactionAmount": ("Amount", "How much do you want to transfer?"),
  "transactionScheduledDate": ("Date", "When?"),
  "transactionNote": ("Note", "What's it for?"),
  // Messaging
  "recipients": ("Recipients", "Who do you want to message?"),
  "INSearchForMessagesIntent.recipients": ("Recipients", "Messages to whom?"),
  "content": ("Message", "What do you want to say?"),
  "speakableGroupName": ("Group", "Which group?"),
  "outgoingMessageType": ("Message type", "Text or audio message?"),
  "serviceName": ("Service", "Which service?"),
  "sender": ("Sender", "Who is it from?"),
  "senders": ("Senders", "Messages from whom?"),
  "searchTerms": ("Search terms", "What are you looking for?"),
  "attributes": ("Attributes", "Which messages: read, unread, flagged?"),
  "dateTimeRange": ("Time", "From when?"),
  "speakableGroupNames": ("Groups", "Which groups?"),
  "identifiers": ("Messages", "Which messages?"),
  "attribute": ("Attribute", "Mark them as what?"),
  // Notes
  "targetNote": ("Note", "Which note?"),
  "INAppendToNoteIntent.content": ("Content", "What do you want to add?"),
  // Calls
  "destinationType": ("Destination", "Which kind of number?"),
  "contacts": ("Contacts", "Who do you want to call?"),
  "audioRoute": ("Audio route", "On the speaker or the phone?"),
  "callCapability": ("Call type", "Audio or video?"),
  // Media
  "mediaItems": ("Media", "What do you want to play?"),
  "mediaContainer": ("Collection", "From which album or playlist?"),
  "playShuffled": ("Shuffle", "Shuffled?"),
  "playbackRepeatMode": ("Repeat", "Repeat how?"),
  "resumePlayback": ("Resume", "Resume where you left off?"),
  "playbackSpeed": ("Speed", "At what speed?"),
  "mediaSearch": ("Search", "What are you looking for?"),
  // Photos
  "dateCreated": ("Date", "Taken when?"),
  "INSearchForPhotosIntent.searchTerms": ("Search terms", "Photos of what?"),
  "albumName": ("Album", "Which album?"),
  // Rides
  "pickupLocation": ("Pickup", "Where should you be picked up?"),
  "dropOffLocation": ("Destination", "Where do you want to go?"),
  "rideOptionName": ("Ride option", "Which ride option?"),
  "partySize": ("Party size", "For how many people?"),
  "rideIdentifier": ("Ride", "Which ride?"),
  "rating": ("Rating", "How would you rate it?"),
  "tip": ("Tip", "How much do you want to tip?"),
  // Restaurants
  "restaurant": ("Restaurant", "Which restaurant?"),
  "bookingDateComponents": ("Time", "For when?"),
  // Car seats
  "enableHeating": ("Heating", "Turn on the heating?"),
  "enableCooling": ("Cooling", "Turn on the cooling?"),
  "level": ("Level", "What level?"),
  "carName": ("Car", "Which car?"),
]

extension IntentSpec {
  /// A system intent of the catalog.
  init(systemClassName: String, domain: String, parameters: [ParameterSpec], response: ResponseSpec) {
    name = String(systemClassName.dropFirst(2).dropLast(6))
    className = systemClassName
    type = "System"
    category = "system"
    verb = nil
    title = nil
    titleID = nil
    description = nil
    descriptionID = nil
    self.domain = domain
    keyParameter = nil
    inputParameter = nil
    restrictions = nil
    eligibleForWidgets = false
    self.parameters = parameters
    self.response = response
    combinations = []
    managedCombinations = []
    // Siri always confirms a payment (A1), and starting a workout: "Ready to start your wall climb workout?", with
    // the app's card, as the extension's handle is documented to receive an intent "resolved and confirmed by the
    // user" (docs/CONVERSATION.md, "The confirmation step").
    userConfirmationRequired = ["INSendPaymentIntent", "INRequestPaymentIntent", "INStartWorkoutIntent"].contains(
      systemClassName)
    configurable = false
  }
}

extension ParameterSpec {
  init(systemName: String, type: ParameterType, multiple: Bool) {
    name = systemName
    self.type = type
    tag = nil
    displayName = nil
    displayNameID = nil
    displayPriority = nil
    configurable = false
    customDisambiguation = false
    supportsDynamicEnumeration = false
    enumNamespace = nil
    objectNamespace = nil
    metadataType = nil
    fixedSizeArray = false
    promptDialogs = []
    unsupportedReasonSpecs = []
    relationship = nil
    trueDisplayNameID = nil
    falseDisplayNameID = nil
    supportsMultipleValues = multiple
    supportsResolution = true
    enumType = nil
    objectType = nil
    prompts = [:]
    trueDisplayName = nil
    falseDisplayName = nil
    defaultValue = nil
    minimumValue = nil
    maximumValue = nil
    unsupportedReasons = [:]
  }
}

extension ResponseSpec {
  init(codes: [ResponseCodeSpec]) {
    self.codes = codes
    parameters = []
    output = nil
  }
}
