// Numbers and durations as people type or say them ("12", "twelve", "an hour").
import Foundation

private let numberWords: [String: Int] = [
  "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
  "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
  "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
  "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
]

/// "12", "-3", "twelve", "twenty one", "twenty-one", "a hundred and five", "two thousand twenty six".
package func parseInteger(_ text: String) -> Int? {
  if let value = Int(text) { return value }
  return parseNumberWords(text).flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil }
}

/// "2.5", "2,5" is not a number; "two and a half", "three point five", "a quarter", "twelve".
func parseDecimal(_ text: String) -> Double? {
  if let value = Double(text), value.isFinite { return value }
  return parseNumberWords(text)
}

/// A number said in English words: units, tens, "hundred", "thousand", "million", "and", "minus", "point" followed
/// by digits, and the fractions "and a half" / "and a quarter" / "and three quarters" (or "a half" alone).
func parseNumberWords(_ text: String) -> Double? {
  var words = text.lowercased().replacingOccurrences(of: "-", with: " ").split(separator: " ").map(String.init)
  guard !words.isEmpty, words.count <= 12 else { return nil }
  var sign = 1.0
  if words.first == "minus" || words.first == "negative" {
    sign = -1
    words.removeFirst()
  }
  var fraction = 0.0
  let fractions: [([String], Double)] = [
    (["and", "a", "half"], 0.5), (["and", "a", "quarter"], 0.25), (["and", "three", "quarters"], 0.75),
    (["a", "half"], 0.5), (["a", "quarter"], 0.25), (["half"], 0.5),
  ]
  for (tail, value) in fractions where words.count >= tail.count && Array(words.suffix(tail.count)) == tail {
    fraction = value
    words.removeLast(tail.count)
    break
  }
  var decimals = ""
  if let point = words.firstIndex(of: "point") {
    for word in words[(point + 1)...] {
      guard let digit = numberWords[word], digit < 10 else { return nil }
      decimals += String(digit)
    }
    guard !decimals.isEmpty else { return nil }
    words = Array(words[..<point])
  }
  if words.isEmpty {
    return fraction > 0 || !decimals.isEmpty ? sign * (fraction + (Double("0." + decimals) ?? 0)) : nil
  }
  var total = 0
  var current = 0
  var sawNumber = false
  var lastWasTens = false
  for (index, word) in words.enumerated() {
    if word == "and", index > 0, index < words.count - 1 { continue }
    if word == "a" || word == "an", index == 0, words.count > 1 {
      current = 1
      continue
    }
    if let value = numberWords[word] {
      // Below a hundred: a unit, a teen or ten, a tens word, or a tens word then a unit ("twenty one", never "one
      // two", "ten ten" or "five twenty").
      let below = current % 100
      let fits = below == 0 || (below >= 20 && below % 10 == 0 && value < 10 && value > 0 && lastWasTens)
      guard fits else { return nil }
      lastWasTens = value >= 20
      current += value
      sawNumber = true
    } else if word == "hundred" {
      guard current < 10 else { return nil }
      lastWasTens = false
      current = Swift.max(current, 1) * 100
      sawNumber = true
    } else if let scale = ["thousand": 1000, "million": 1_000_000][word] {
      guard total == 0 || total >= scale * 1000 else { return nil }
      total += Swift.max(current, 1) * scale
      current = 0
      lastWasTens = false
      sawNumber = true
    } else {
      return nil
    }
  }
  guard sawNumber else { return nil }
  let whole = Double(total + current)
  return sign * (whole + fraction + (decimals.isEmpty ? 0 : Double("0." + decimals)!))
}

/// A duration in seconds: "30 minute", "30 minutes", "an hour", "a minute", "half an hour", "a quarter of an hour",
/// "an hour and a half", "one and a half hours", "1 hour 30 minutes", "2 hours and 15 minutes", "90 seconds",
/// "90 s"; a bare number is minutes, a bare unit is one of it ("hour").
package func parseDuration(_ text: String) -> Double? {
  let units: [String: Double] = [
    "second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1, "minute": 60, "minutes": 60, "min": 60, "mins": 60,
    "hour": 3600, "hours": 3600, "h": 3600, "hr": 3600, "hrs": 3600, "day": 86400, "days": 86400,
  ]
  let words = normalizedWords(text)
  guard !words.isEmpty else { return nil }
  if let minutes = parseDecimal(words.joined(separator: " ")) { return minutes * 60 }
  var total = 0.0
  var lastUnit: Double? = nil
  var pending: [String] = []
  for word in words {
    if let unit = units[word] {
      guard let amount = durationAmount(pending) else { return nil }
      total += amount * unit
      lastUnit = unit
      pending = []
    } else {
      pending.append(word)
    }
  }
  // "an hour and a half": a fraction of the last unit.
  if !pending.isEmpty {
    guard let lastUnit, pending.first == "and", let fraction = parseDecimal(pending.dropFirst().joined(separator: " ")),
      fraction > 0, fraction < 1
    else { return nil }
    total += fraction * lastUnit
  }
  return total > 0 ? total : nil
}

/// How many of a unit the words before it say: none or "a"/"an" is one; "half an", "a quarter of an" a fraction;
/// otherwise a number ("two and a half"). A leading "and" (between two amounts) is dropped.
private func durationAmount(_ words: [String]) -> Double? {
  var words = words
  if words.first == "and" { words.removeFirst() }
  if words.isEmpty || words == ["a"] || words == ["an"] { return 1 }
  if let last = words.last, last == "a" || last == "an" {
    words.removeLast()
    if words.last == "of" { words.removeLast() }
    guard !words.isEmpty, let fraction = parseDecimal(words.joined(separator: " ")), fraction > 0, fraction < 1
    else { return nil }
    return fraction
  }
  return parseDecimal(words.joined(separator: " "))
}
