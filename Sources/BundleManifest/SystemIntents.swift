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

  /// The intent, or nil when it is not a system intent IntentHost knows.
  public static func named(_ className: String) -> SystemIntent? { catalog[className] }

  /// Every known system intent, by class name.
  public static let catalog: [String: SystemIntent] = {
    var table: [String: SystemIntent] = [:]
    func add(
      _ className: String, _ domain: String, unlock: Bool = false, unlockAfterQuestions: Bool = false,
      _ parameters: [(String, String, Bool)], codes: [String], successes: [String] = ["success"]
    ) {
      let standard = ["unspecified", "ready", "failure", "failureRequiringAppLaunch"]
      let all = standard + codes.filter { !standard.contains($0) }
      let spec = IntentSpec(
        systemClassName: className, domain: domain,
        parameters: parameters.map { ParameterSpec(systemName: $0.0, type: $0.1, multiple: $0.2) },
        response: ResponseSpec(codes: all.map { ResponseCodeSpec(name: $0, isSuccess: successes.contains($0)) }))
      table[className] = SystemIntent(
        spec: spec, domain: domain, alwaysRequiresUnlockedDevice: unlock,
        requiresUnlockedDeviceAfterQuestions: unlockAfterQuestions)
    }
    let workout: [(String, String, Bool)] = [("workoutName", "SpeakableString", false)]
    let workoutCodes = ["continueInApp", "failureNoMatchingWorkout", "handleInApp", "success"]
    add(
      "INStartWorkoutIntent", "Workouts", unlock: true,
      workout + [
        ("goalValue", "Decimal", false), ("workoutGoalUnitType", "Enum", false),
        ("workoutLocationType", "Enum", false), ("isOpenEnded", "Boolean", false),
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
      [("payee", "Person", false), ("currencyAmount", "CurrencyAmount", false), ("note", "String", false)],
      codes: paymentFailures + ["failureInsufficientFunds"])
    add(
      "INRequestPaymentIntent", "Payments", unlock: true,
      [("payer", "Person", false), ("currencyAmount", "CurrencyAmount", false), ("note", "String", false)],
      codes: paymentFailures)
    add(
      "INSearchForAccountsIntent", "Payments",
      [
        ("accountNickname", "SpeakableString", false), ("accountType", "Enum", false),
        ("organizationName", "SpeakableString", false), ("requestedBalanceType", "Enum", false),
      ],
      codes: [
        "inProgress", "success", "failureCredentialsUnverified", "failureAccountNotFound",
        "failureTermsAndConditionsAcceptanceRequired", "failureNotEligible",
      ])
    add(
      "INTransferMoneyIntent", "Payments",
      [
        ("fromAccount", "PaymentAccount", false), ("toAccount", "PaymentAccount", false),
        ("transactionAmount", "PaymentAmount", false), ("transactionScheduledDate", "DateComponentsRange", false),
        ("transactionNote", "String", false),
      ], codes: ["inProgress", "success", "failureCredentialsUnverified", "failureInsufficientFunds"])

    let messageFailures = [
      "inProgress", "success", "failureMessageServiceNotAvailable", "failureRequiringInAppAuthentication",
    ]
    add(
      "INSendMessageIntent", "Messaging",
      [
        ("recipients", "Person", true), ("content", "String", false), ("speakableGroupName", "SpeakableString", false),
        ("outgoingMessageType", "Enum", false), ("serviceName", "String", false), ("sender", "Person", false),
      ], codes: messageFailures)
    add(
      "INSearchForMessagesIntent", "Messaging",
      [
        ("recipients", "Person", true), ("senders", "Person", true), ("searchTerms", "String", true),
        ("attributes", "Enum", false), ("dateTimeRange", "DateComponentsRange", false),
        ("speakableGroupNames", "SpeakableString", true),
      ], codes: messageFailures + ["failureMessageTooManyResults"])
    add(
      "INSetMessageAttributeIntent", "Messaging", [("identifiers", "String", true), ("attribute", "Enum", false)],
      codes: ["inProgress", "success", "failureMessageNotFound", "failureMessageAttributeNotSet"])

    // Notes (a deprecated domain, kept for Apple's one conditional lock rule).
    add(
      "INAppendToNoteIntent", "Notes", unlockAfterQuestions: true,
      [("targetNote", "Note", false), ("content", "NoteContent", false)],
      codes: ["inProgress", "success", "failureCannotUpdatePasswordProtectedNote"])

    let callFailures = [
      "continueInApp", "failureAppConfigurationRequired", "failureCallingServiceNotAvailable",
      "failureContactNotSupportedByApp",
    ]
    add(
      "INStartAudioCallIntent", "VoIP Calling", [("destinationType", "Enum", false), ("contacts", "Person", true)],
      codes: callFailures + ["failureNoValidNumber"], successes: [])
    add("INStartVideoCallIntent", "VoIP Calling", [("contacts", "Person", true)], codes: callFailures, successes: [])
    add(
      "INStartCallIntent", "VoIP Calling",
      [
        ("audioRoute", "Enum", false), ("destinationType", "Enum", false), ("contacts", "Person", true),
        ("callCapability", "Enum", false),
      ],
      codes: callFailures + [
        "failureNoValidNumber", "failureAirplaneModeEnabled", "failureUnableToHandOff",
        "failureFaceTimeServiceNotAvailable", "failureCallInProgress", "failureRequiringInAppAuthentication",
      ], successes: [])

    add(
      "INPlayMediaIntent", "Media",
      [
        ("mediaItems", "MediaItem", true), ("mediaContainer", "MediaItem", false), ("playShuffled", "Boolean", false),
        ("playbackRepeatMode", "Enum", false), ("resumePlayback", "Boolean", false),
        ("playbackSpeed", "Decimal", false), ("mediaSearch", "MediaSearch", false),
      ],
      codes: [
        "continueInApp", "inProgress", "success", "handleInApp", "failureUnknownMediaType",
        "failureNoUnplayedContent", "failureRestrictedContent", "failureMaxStreamLimitReached",
      ])
    add(
      "INSearchForPhotosIntent", "Photos", unlock: true,
      [("dateCreated", "DateComponentsRange", false), ("searchTerms", "String", true), ("albumName", "String", false)],
      codes: ["continueInApp", "failureAppConfigurationRequired"], successes: [])
    add(
      "INRequestRideIntent", "Ride Booking", unlock: true,
      [
        ("pickupLocation", "Placemark", false), ("dropOffLocation", "Placemark", false),
        ("rideOptionName", "SpeakableString", false), ("partySize", "Integer", false),
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
      [("rideIdentifier", "String", false), ("rating", "Integer", false), ("tip", "CurrencyAmount", false)],
      codes: ["success"])
    add(
      "INBookRestaurantReservationIntent", "Restaurant Reservations", unlock: true,
      [
        ("restaurant", "Restaurant", false), ("bookingDateComponents", "DateComponents", false),
        ("partySize", "Integer", false),
      ],
      codes: [
        "success", "denied", "failureRequiringAppLaunchMustVerifyCredentials",
        "failureRequiringAppLaunchServiceTemporarilyUnavailable",
      ])
    add(
      "INSetSeatSettingsInCarIntent", "CarPlay", unlock: true,
      [("enableHeating", "Boolean", false), ("enableCooling", "Boolean", false), ("level", "Integer", false)],
      codes: ["inProgress", "success"])
    return table
  }()
}

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
    userConfirmationRequired =
      domain == "Payments" && ["INSendPaymentIntent", "INRequestPaymentIntent"].contains(systemClassName)
    configurable = false
  }
}

extension ParameterSpec {
  init(systemName: String, type: String, multiple: Bool) {
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
