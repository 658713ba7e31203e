import AssistantHost
import IntentHostSystem

/// The throughput rows: `clients` concurrent warm clients, each its own `Assistant` with its own kept-alive
/// extensions (a `WarmExtensions` each: one shared would give its session of an extension to one client at a time,
/// start another for the next, and shut one of the two down when both are put back), run `count` intents between
/// them. Prints the intents per second (all of them over the wall time from the first start to the last end) and
/// the median and p99 of each intent's time under that load.
///
/// Client c's intent i takes `{n}` = 1 + c + clients × ((i / 2) mod (300 / clients)) and `{cancel}` = i odd: each
/// client books a room of its own and cancels it next, so every run succeeds and the rooms end free.
func throughputBench(
  home: AssistantHome, count: Int, clients: Int, app: String, intent: String, values: [String]
) async throws {
  let rooms = 300 / clients
  // An even number each, so that every booking is cancelled.
  let each = max(2, (count / clients + 1) / 2 * 2)
  var all: [Client] = []
  for index in 0..<clients {
    let (assistant, warm) = warmAssistant(home: home)
    // The invocations repeat after 2 × rooms; each is resolved once, before the clock starts.
    var invocations: [IntentInvocation] = []
    for i in 0..<min(each, 2 * rooms) {
      let given = filled(values, room: 1 + index + clients * ((i / 2) % rooms), cancel: i % 2 == 1)
      invocations.append(try await offloaded { try assistant.invocation(app: app, intent: intent, values: given) })
    }
    all.append(Client(assistant: assistant, warm: warm, invocations: invocations))
  }
  do {
    // Warm-up: each client starts its extensions and runs its first ten intents (five bookings, each cancelled).
    try await withThrowingTaskGroup(of: [Double].self) { group in
      for client in all { group.addTask { try await client.run(10) } }
      try await group.waitForAll()
    }
    let clock = ContinuousClock()
    let start = clock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
      for client in all { group.addTask { try await client.run(each) } }
      return try await group.reduce(into: [Double]()) { $0 += $1 }
    }
    let perSecond = Double(latencies.count) / (clock.now - start).inSeconds
    let name = "throughput: \(clients) warm client\(clients == 1 ? "" : "s")"
    let sorted = latencies.sorted()
    let median = sorted[sorted.count / 2]
    let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    print(
      name.padding(toLength: 44, withPad: " ", startingAt: 0)
        + String(format: " %9.3f %9.3f  %8.1f intents/s", median, p99, perSecond))
    await Results.append([
      "name": .string(name), "median": .number(median), "p99": .number(p99), "per_second": .number(perSecond),
      "n": .number(Double(latencies.count)), "clients": .number(Double(clients)),
    ])
  } catch {
    for client in all { await client.warm.shutdownAll() }
    throw error
  }
  for client in all { await client.warm.shutdownAll() }
}

/// One warm client of `throughputBench`.
struct Client: Sendable {
  var assistant: Assistant
  var warm: WarmExtensions
  var invocations: [IntentInvocation]

  /// Runs `count` intents in turn, the invocations in order and again; returns each one's time in ms.
  func run(_ count: Int) async throws -> [Double] {
    let clock = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for i in 0..<count {
      let start = clock.now
      let outcome = try await assistant.run(invocations[i % invocations.count])
      samples.append((clock.now - start).inMilliseconds)
      guard outcome.isSuccess else { throw HostError(.failureResponse, "a run failed: \(outcome.dialog)") }
    }
    return samples
  }
}
