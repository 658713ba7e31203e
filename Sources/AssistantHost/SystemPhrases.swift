/// What people say to reach Apple's system intents (`SystemIntent.catalog`), as Siri understands them: phrases in
/// the same `${parameter}` form as a definition's Shortcuts titles, so the matcher treats them alike. An app that
/// supports a system intent answers to these phrases ("Start a workout with Ascent").
enum SystemPhrases {
  /// Class name to its phrases, most specific first.
  static let catalog: [String: [String]] = [
    "INStartWorkoutIntent": [
      "start a ${workoutName} workout", "start ${workoutName}", "start a workout", "begin a ${workoutName} workout",
      "begin a workout", "go for a ${workoutName}",
      // A goal, a location, open-endedness ("Start a 30 minute outdoor wall climb", "start an open ended wall
      // climb"): the isOpenEnded slot reads "open ended" as true (`ValueInterpreter`).
      "start a ${goalValue} ${workoutGoalUnitType} ${workoutLocationType} ${workoutName}",
      "start a ${goalValue} ${workoutGoalUnitType} ${workoutName}",
      "start a ${workoutLocationType} ${workoutName}", "start an ${isOpenEnded} ${workoutName}",
      "start an ${isOpenEnded} ${workoutLocationType} ${workoutName}",
    ],
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
}
