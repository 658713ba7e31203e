/// What people say to reach Apple's system intents (`SystemIntent.catalog`), as Siri understands them: phrases in
/// the same `${parameter}` form as a definition's Shortcuts titles, so the matcher treats them alike. An app that
/// supports a system intent answers to these phrases ("Start a workout with Ascent").
enum SystemPhrases {
  /// Class name to its phrases, most specific first.
  static let catalog: [String: [String]] = [
    "INStartWorkoutIntent": startWorkout,
    "INPauseWorkoutIntent": ["pause my ${workoutName} workout", "pause my workout", "pause the workout"],
    "INResumeWorkoutIntent": ["resume my ${workoutName} workout", "resume my workout", "continue my workout"],
    "INEndWorkoutIntent": ["end my ${workoutName} workout", "end my workout", "stop my workout", "finish my workout"],
    "INCancelWorkoutIntent": ["cancel my ${workoutName} workout", "cancel my workout"],
    "INSendPaymentIntent": [
      "send ${payee} ${currencyAmount} for ${note}", "send ${payee} ${currencyAmount}",
      "pay ${payee} ${currencyAmount}",
      "send ${currencyAmount} to ${payee}", "pay ${payee}", "send money", "send a payment",
    ],
    "INRequestPaymentIntent": [
      "request ${currencyAmount} from ${payer} for ${note}", "request ${currencyAmount} from ${payer}",
      "request money from ${payer}", "request money", "request a payment",
    ],
    "INSearchForAccountsIntent": ["show my ${accountNickname} balance", "show my balance", "check my balance"],
    "INTransferMoneyIntent": ["transfer ${transactionAmount} to ${toAccount}", "transfer money"],
    "INSendMessageIntent": [
      "send a message to ${recipients} saying ${content}", "tell ${recipients} ${content}",
      "message ${recipients} saying ${content}", "send a message to ${recipients}", "message ${recipients}",
      "send a message",
    ],
    "INSearchForMessagesIntent": [
      "show my messages from ${senders}", "read my messages from ${senders}", "show my messages", "read my messages",
    ],
    "INSetMessageAttributeIntent": ["mark my messages as read", "mark the message as read"],
    "INAppendToNoteIntent": ["add ${content} to my ${targetNote} note", "add to my note"],
    "INStartAudioCallIntent": ["call ${contacts}", "make a call"],
    "INStartVideoCallIntent": ["video call ${contacts}", "make a video call"],
    "INStartCallIntent": ["call ${contacts}", "make a call"],
    "INPlayMediaIntent": ["play ${mediaItems}", "play music", "play something"],
    "INSearchForPhotosIntent": [
      "show my photos of ${searchTerms}", "show my ${albumName} album", "show my photos", "find photos",
    ],
    "INRequestRideIntent": [
      "get me a ride to ${dropOffLocation}", "book a ride to ${dropOffLocation}", "get me a ride", "book a ride",
    ],
    "INGetRideStatusIntent": ["where is my ride", "what is the status of my ride", "ride status"],
    "INSendRideFeedbackIntent": ["rate my ride ${rating} stars", "rate my ride"],
    "INBookRestaurantReservationIntent": [
      "book a table for ${partySize} at ${restaurant}", "book a table for ${partySize}", "book a table",
    ],
    "INSetSeatSettingsInCarIntent": ["turn on my seat heater", "heat my seat", "cool my seat"],
  ]

  /// The phrases `assistant phrases` and "What can you do?" show for an intent whose phrases are many combinations
  /// of the same parts (`startWorkout`'s 43): one of each shape, each a phrase of `catalog`. Intents not listed show
  /// all of theirs.
  static let shown: [String: [String]] = [
    "INStartWorkoutIntent": [
      "start a ${workoutName} workout",
      "start a ${goalValue} ${workoutGoalUnitType} ${workoutLocationType} ${workoutName}",
      "start a ${workoutName} for ${goalValue} ${workoutGoalUnitType}", "start a ${isOpenEnded} ${workoutName}",
      "start a ${workoutLocationType} workout", "start a workout", "begin a ${workoutName} workout", "begin a workout",
      "go for a ${workoutName}", "${workoutName} ${goalValue} ${workoutGoalUnitType}",
      "${workoutName} for ${goalValue} ${workoutGoalUnitType}",
    ]
  ]

  /// Whether `phrase` of `intentClass` is one to show (`shown`).
  static func isShown(_ phrase: String, of intentClass: String) -> Bool {
    shown[intentClass]?.contains(phrase) ?? true
  }

  /// Siri's phrases for starting a workout, most specific first: "start a", then what the user may say before the
  /// workout, each optional, in this order: a goal (`${goalValue} ${workoutGoalUnitType}`, "30 minute"),
  /// open-endedness (`${isOpenEnded}`, "open ended"), a location (`${workoutLocationType}`, "outdoor"); then the
  /// workout: `${workoutName} workout`, `${workoutName}`, or the generic noun alone (`workout`: no name, so the app
  /// may suggest one); then, when no goal came before, optionally `for ${goalValue} ${workoutGoalUnitType}` ("for 20
  /// minutes"). "Start an indoor wall climb for 20 minutes", "Start a 10 minute open ended wall climb", "Start a 30
  /// minute workout" and "Start an outdoor workout" each have their phrase, so no value is left inside the name
  /// (`genericNouns`). Then "begin" and "go for a", which take a name or nothing. Last, the workout said as the
  /// verb, with a goal: "walk 500 miles", "jog for 10 miles" (`${workoutName} ${goalValue} ${workoutGoalUnitType}`,
  /// `${workoutName} for ...`), and "go for a 5 mile run": the name is the word the user said, vocabulary or not,
  /// as Apple passes the spoken name (an `INSpeakableString`) for the extension to resolve. A phrase that starts with
  /// the name is read whole, and its name is one word (`mayName`, `leading`).
  static let startWorkout: [String] = {
    let goal = "${goalValue} ${workoutGoalUnitType}"
    var phrases: [String] = []
    for before in [true, false] {
      for openEnded in [true, false] {
        for location in [true, false] {
          for workout in ["${workoutName} workout", "${workoutName}", "workout"] {
            let words =
              ["start a"] + (before ? [goal] : []) + (openEnded ? ["${isOpenEnded}"] : [])
              + (location ? ["${workoutLocationType}"] : []) + [workout]
            if !before { phrases.append((words + ["for", goal]).joined(separator: " ")) }
            phrases.append(words.joined(separator: " "))
          }
        }
      }
    }
    return phrases + [
      "start ${workoutName}", "begin a ${workoutName} workout", "begin a workout", "go for a ${workoutName}",
      "${workoutName} ${goalValue} ${workoutGoalUnitType}", "${workoutName} for ${goalValue} ${workoutGoalUnitType}",
      "go for a ${goalValue} ${workoutGoalUnitType} ${workoutName}",
    ]
  }()

  /// The generic noun of a system intent's named thing, by class name: the parameter that names it, and the noun
  /// Siri's phrases say beside it ("start a wall climb workout"). The noun alone is no name, and no name ends with
  /// it: "Start an outdoor workout" names no workout (the app may suggest one), "Start a 45 minute boulder climb
  /// workout" names "boulder climb". Nor does a name start with a number: a number before the workout is a goal, and
  /// the word after it must be a unit (`INWorkoutGoalUnitType`), so "Start a 5 kilometer wall climb" is not understood
  /// rather than naming "5 kilometer wall climb". A term the app registered for the parameter (`UserVocabulary`,
  /// "Tempo Run Workout", "5K Run") is a name whatever its words.
  static let genericNouns: [String: (parameter: String, noun: String)] = [
    "INStartWorkoutIntent": ("workoutName", "workout"), "INPauseWorkoutIntent": ("workoutName", "workout"),
    "INResumeWorkoutIntent": ("workoutName", "workout"), "INEndWorkoutIntent": ("workoutName", "workout"),
    "INCancelWorkoutIntent": ("workoutName", "workout"),
  ]

  /// The verbs of the phrases of the intents with a generic noun (`genericNouns`): the first word of each
  /// ("start", "begin", "go", "pause", "resume", "continue", "end", "stop", "finish", "cancel").
  static let verbs: Set<String> = Set(
    genericNouns.keys.flatMap { catalog[$0] ?? [] }.compactMap { phrase in
      guard case .word(let word) = UtteranceMatcher.tokens(phrase).first else { return nil }
      return word
    })

  /// Whether `words` (lower case) may be the value of `parameter`'s slot in a phrase of `intentClass`: not when the
  /// intent has a generic noun for that parameter (`genericNouns`) and the words are the noun, end with it (or its
  /// plural), or start with a number (after "a", "an", "the" or "my", which a text slot keeps: "start a 5
  /// kilometer wall climb" against `start ${workoutName}`).
  /// - Parameter leading: the slot starts the phrase: the name is said as the verb of the request ("walk 500
  ///   miles"). Then it is also one word, and none of the intents' own verbs (`verbs`): "Start 30 minutes" starts no
  ///   workout called "start", and "I would walk 500 miles" none called "i would walk". (A value of the app's
  ///   vocabulary is a name whatever its words: `UtteranceMatcher` does not ask.)
  static func mayName(_ words: ArraySlice<String>, parameter: String, of intentClass: String, leading: Bool = false)
    -> Bool
  {
    guard let generic = genericNouns[intentClass], generic.parameter == parameter, let last = words.last else {
      return true
    }
    if leading, words.count != 1 || verbs.contains(last) { return false }
    let first = words.first { !["a", "an", "the", "my"].contains($0) }
    return last != generic.noun && last != generic.noun + "s" && first.flatMap(parseDecimal) == nil
  }
}
