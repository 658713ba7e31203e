/// What Siri says for the response codes of Apple's system intents (`SystemIntent.catalog`). A system intent has no
/// definition, so no response templates: these sentences stand in for them, in the same `${name}` form.
///
/// Each code has its alternatives, most specific first; the first whose every `${name}` has a value is said.
/// `${app}` is the app's name; any other name is a parameter, taken from the response's parameters first, then from
/// the intent's ("Starting your ${workoutName} workout in ${app}." is said "Starting your wall climb workout in
/// Ascent."). The last alternative of each code names nothing but `${app}`, so a code listed here always has a
/// sentence. A code not listed (`handleInApp`, which is never the final answer; the standard codes of most intents)
/// is said with the driver's generic sentence ("Done.", "Sorry, there was a problem with Rooms."). `ready` is never
/// the final answer either: where it is listed, it is the question of the confirmation step.
///
/// Siri says its own sentence, never the app's text: a `reason` the response carries is not said (it is in
/// `--json`'s `responseParameters`).
package enum SystemDialogs {
  /// Class name to response code to its alternatives, most specific first.
  static let catalog: [String: [String: [String]]] = {
    var table: [String: [String: [String]]] = [
      "INStartWorkoutIntent": workout(
        verb: "start", doing: "Starting",
        noMatchingWorkout: [
          "Sorry, there's no ${workoutName} workout in ${app}.", "Sorry, there's no such workout in ${app}.",
        ]
      )
      .merging([
        "failureOngoingWorkout": ["You already have a workout going in ${app}."],
        // The confirmation step's question (confirm answered ready; `SystemIntent.userConfirmationRequired`).
        "ready": ["Ready to start your ${workoutName} workout in ${app}?", "Ready to start your workout in ${app}?"],
      ]) { $1 },
      "INPauseWorkoutIntent": workout(
        verb: "pause", doing: "Pausing",
        noMatchingWorkout: [
          "There's no active ${workoutName} workout to pause in ${app}.",
          "There's no active workout to pause in ${app}.",
        ]),
      "INResumeWorkoutIntent": workout(
        verb: "resume", doing: "Resuming",
        noMatchingWorkout: [
          "There's no paused ${workoutName} workout to resume in ${app}.",
          "There's no paused workout to resume in ${app}.",
        ]),
      "INEndWorkoutIntent": workout(
        verb: "end", doing: "Ending",
        noMatchingWorkout: [
          "There's no ${workoutName} workout in progress to end in ${app}.",
          "There's no workout in progress to end in ${app}.",
        ]),
      "INCancelWorkoutIntent": workout(
        verb: "cancel", doing: "Cancelling",
        noMatchingWorkout: [
          "There's no ${workoutName} workout in progress to cancel in ${app}.",
          "There's no workout in progress to cancel in ${app}.",
        ]),
    ]
    table["INSendPaymentIntent"] = payment(
      sent: [
        "Sent ${currencyAmount} to ${payee} with ${app}.", "Sent your payment to ${payee} with ${app}.",
        "Your payment was sent with ${app}.",
      ],
      working: ["${app} is still sending your payment to ${payee}.", "${app} is still sending your payment."],
      verb: "send"
    ).merging([
      "failureInsufficientFunds": [
        "Sorry, you don't have enough money in ${app} to send ${currencyAmount}.",
        "Sorry, you don't have enough money in ${app} for that payment.",
      ]
    ]) { $1 }
    table["INRequestPaymentIntent"] = payment(
      sent: [
        "Requested ${currencyAmount} from ${payer} with ${app}.", "Requested a payment from ${payer} with ${app}.",
        "Your payment request was sent with ${app}.",
      ],
      working: ["${app} is still requesting your payment from ${payer}.", "${app} is still requesting your payment."],
      verb: "request")
    table["INSearchForAccountsIntent"] = [
      "success": ["Here's your ${accountNickname} account in ${app}.", "Here are your accounts in ${app}."],
      "failureCredentialsUnverified": ["Sorry, ${app} couldn't verify your credentials."],
      "failureAccountNotFound": [
        "Sorry, I couldn't find your ${accountNickname} account in ${app}.",
        "Sorry, I couldn't find that account in ${app}.",
      ],
      "failureTermsAndConditionsAcceptanceRequired": ["You need to accept ${app}'s terms and conditions first."],
      "failureNotEligible": ["Sorry, your account isn't eligible for that in ${app}."],
    ]
    table["INTransferMoneyIntent"] = [
      "success": [
        "Transferred ${transactionAmount} from ${fromAccount} to ${toAccount} with ${app}.",
        "Transferred ${transactionAmount} to ${toAccount} with ${app}.",
        "Your transfer was made with ${app}.",
      ],
      "inProgress": ["${app} is still making your transfer."],
      "failureCredentialsUnverified": ["Sorry, ${app} couldn't verify your credentials."],
      "failureInsufficientFunds": [
        "Sorry, there isn't enough money in ${fromAccount} to transfer ${transactionAmount}.",
        "Sorry, there isn't enough money in your account for that transfer in ${app}.",
      ],
    ]
    let messaging = [
      "failureMessageServiceNotAvailable": ["Sorry, ${app} can't send or read messages right now."],
      "failureRequiringInAppAuthentication": ["You need to sign in to ${app} first."],
    ]
    table["INSendMessageIntent"] = messaging.merging([
      "success": ["Your message to ${recipients} was sent with ${app}.", "Your message was sent with ${app}."],
      "inProgress": ["${app} is still sending your message."],
    ]) { $1 }
    table["INSearchForMessagesIntent"] = messaging.merging([
      "success": ["Here are your messages from ${senders} in ${app}.", "Here are your messages in ${app}."],
      "failureMessageTooManyResults": ["There are too many messages in ${app} to read. Try a narrower search."],
    ]) { $1 }
    table["INSetMessageAttributeIntent"] = [
      "success": ["Your messages are marked as ${attribute} in ${app}.", "Your messages are updated in ${app}."],
      "failureMessageNotFound": ["Sorry, I couldn't find those messages in ${app}."],
      "failureMessageAttributeNotSet": [
        "Sorry, ${app} couldn't mark your messages as ${attribute}.", "Sorry, ${app} couldn't update your messages.",
      ],
    ]
    table["INAppendToNoteIntent"] = [
      "success": ["Added to ${targetNote} in ${app}.", "Added to your note in ${app}."],
      "failureCannotUpdatePasswordProtectedNote": ["Sorry, ${app} can't change a locked note."],
    ]
    let calling = ["Calling ${contacts} with ${app}.", "Calling with ${app}."]
    let noValidNumber = [
      "failureNoValidNumber": [
        "Sorry, I couldn't find a number for ${contacts} in ${app}.", "Sorry, I couldn't find a number to call.",
      ]
    ]
    table["INStartAudioCallIntent"] = call(calling: calling, noValidNumber)
    table["INStartVideoCallIntent"] = call(calling: [
      "Starting a video call with ${contacts} in ${app}.", "Starting a video call in ${app}.",
    ])
    table["INStartCallIntent"] = call(
      calling: calling,
      noValidNumber.merging([
        "failureAirplaneModeEnabled": ["You can't make calls with ${app} while airplane mode is on."],
        "failureUnableToHandOff": ["Sorry, ${app} couldn't hand off the call."],
        "failureFaceTimeServiceNotAvailable": ["Sorry, FaceTime isn't available right now."],
        "failureCallInProgress": ["You're already on a call."],
        "failureRequiringInAppAuthentication": ["You need to sign in to ${app} first."],
      ]) { $1 })
    table["INPlayMediaIntent"] = [
      "success": ["Playing ${mediaItems} in ${app}.", "Playing in ${app}."],
      "continueInApp": ["Opening ${app} to play ${mediaItems}.", "Opening ${app} to play it."],
      "failureUnknownMediaType": ["Sorry, ${app} can't play ${mediaItems}.", "Sorry, ${app} can't play that."],
      "failureNoUnplayedContent": ["There's nothing new to play in ${app}."],
      "failureRestrictedContent": ["Sorry, that's restricted in ${app}."],
      "failureMaxStreamLimitReached": ["Sorry, ${app} is already playing on too many devices."],
    ]
    table["INSearchForPhotosIntent"] = [
      "continueInApp": [
        "Here are your photos of ${searchTerms} in ${app}.", "Here's your ${albumName} album in ${app}.",
        "Here are your photos in ${app}.",
      ],
      "failureAppConfigurationRequired": ["You need to set up ${app} first."],
    ]
    let signIn = ["You need to sign in to ${app} first."]
    table["INRequestRideIntent"] = [
      "success": ["Your ride to ${dropOffLocation} is requested with ${app}.", "Your ride is requested with ${app}."],
      "inProgress": ["${app} is still requesting your ride."],
      "failureRequiringAppLaunchMustVerifyCredentials": signIn,
      "failureRequiringAppLaunchNoServiceInArea": ["Sorry, ${app} doesn't serve that area."],
    ]
    table["INGetRideStatusIntent"] = [
      "success": ["Here's the status of your ride with ${app}."],
      "inProgress": ["${app} is still checking on your ride."],
      "failureRequiringAppLaunchMustVerifyCredentials": signIn,
    ]
    table["INSendRideFeedbackIntent"] = [
      "success": ["Thanks, your rating of ${rating} was sent to ${app}.", "Thanks, your feedback was sent to ${app}."]
    ]
    table["INBookRestaurantReservationIntent"] = [
      "success": [
        "Your table for ${partySize} at ${restaurant} is booked with ${app}.",
        "Your table at ${restaurant} is booked with ${app}.", "Your table is booked with ${app}.",
      ],
      "denied": [
        "Sorry, ${restaurant} couldn't take your booking in ${app}.", "Sorry, ${app} couldn't book that table.",
      ],
      "failureRequiringAppLaunchMustVerifyCredentials": signIn,
      "failureRequiringAppLaunchServiceTemporarilyUnavailable": ["Sorry, ${app} isn't taking bookings right now."],
    ]
    table["INSetSeatSettingsInCarIntent"] = [
      "success": ["Your seat in ${carName} is set with ${app}.", "Your seat is set with ${app}."],
      "inProgress": ["${app} is still setting your seat."],
    ]
    return table
  }()

  /// Every code of a workout intent but `ready` and `handleInApp`: `verb` is what the intent does ("pause"),
  /// `doing` its sentence's first word ("Pausing").
  private static func workout(verb: String, doing: String, noMatchingWorkout: [String]) -> [String: [String]] {
    let failed = [
      "Sorry, I couldn't \(verb) your ${workoutName} workout in ${app}.",
      "Sorry, I couldn't \(verb) your workout in ${app}.",
    ]
    return [
      "success": ["\(doing) your ${workoutName} workout in ${app}.", "\(doing) your workout in ${app}."],
      "failureNoMatchingWorkout": noMatchingWorkout,
      "continueInApp": [
        "Opening ${app} to \(verb) your ${workoutName} workout.", "Opening ${app} to \(verb) your workout.",
      ],
      "failureRequiringAppLaunch": [
        "You need to open ${app} to \(verb) your ${workoutName} workout.",
        "You need to open ${app} to \(verb) your workout.",
      ],
      "failure": failed,
      "unspecified": failed,
    ]
  }

  /// The codes sending and requesting a payment share; `verb` is "send" or "request".
  private static func payment(sent: [String], working: [String], verb: String) -> [String: [String]] {
    [
      "success": sent,
      "inProgress": working,
      "failureCredentialsUnverified": ["Sorry, ${app} couldn't verify your credentials."],
      "failurePaymentsAmountBelowMinimum": [
        "Sorry, ${currencyAmount} is less than ${app} can \(verb).",
        "Sorry, that amount is less than ${app} can \(verb).",
      ],
      "failurePaymentsAmountAboveMaximum": [
        "Sorry, ${currencyAmount} is more than ${app} can \(verb).",
        "Sorry, that amount is more than ${app} can \(verb).",
      ],
      "failurePaymentsCurrencyUnsupported": ["Sorry, ${app} doesn't support that currency."],
      "failureNoBankAccount": ["You need to add a bank account to ${app} first."],
      "failureNotEligible": ["Sorry, your account isn't eligible to \(verb) payments with ${app}."],
      "failureTermsAndConditionsAcceptanceRequired": ["You need to accept ${app}'s terms and conditions first."],
    ]
  }

  /// The codes the three call intents share, and `more` of one of them; `calling` is said for `continueInApp`, which
  /// opens the app to call.
  private static func call(calling: [String], _ more: [String: [String]] = [:]) -> [String: [String]] {
    more.merging([
      "continueInApp": calling,
      "failureAppConfigurationRequired": ["You need to set up ${app} first."],
      "failureCallingServiceNotAvailable": ["Sorry, ${app} can't make calls right now."],
      "failureContactNotSupportedByApp": ["Sorry, ${app} can't call ${contacts}.", "Sorry, ${app} can't call them."],
    ]) { $1 }
  }

  /// Siri's sentence for `code` of `intentClass`: the first alternative whose every `${name}` has a value, filled.
  /// - Parameters:
  ///   - value: a parameter's value in words, or nil when it has none (an empty or blank value counts as none).
  /// - Returns: nil when the catalog has no sentence for the code (the generic one is then said).
  package static func dialog(intent intentClass: String, code: String, app: String, value: (String) -> String?)
    -> String?
  {
    guard let alternatives = catalog[intentClass]?[code] else { return nil }
    func filled(_ name: String) -> String? {
      if name == "app" { return app }
      guard let words = value(name), !words.allSatisfy(\.isWhitespace) else { return nil }
      return words
    }
    for alternative in alternatives {
      let (text, missing) = renderTemplate(alternative, values: filled)
      if missing.isEmpty { return text }
    }
    return nil
  }
}
