// "Did you mean": the suggestions of a name for a misspelt one, for the engine, the command line and the manifest
// model (a misspelt key, template name, app group or phrase word). A leaf (it imports Foundation only), so that every
// target that suggests names can use it.
import Foundation

/// ` (did you mean "NAME"?)` for the names closest to `word` (`closestNames` with its default reach), or "".
package func suggestion(_ word: String, among names: [String]) -> String {
  let close = closestNames(to: word, among: names)
  return close.isEmpty ? "" : " (" + didYouMean(close) + ")"
}

/// `did you mean "NAME"?`, or `did you mean "NAME" or "OTHER"?`: the one wording of a suggestion, for `names` as
/// `closestNames` gives them (not empty).
package func didYouMean(_ names: [String]) -> String {
  "did you mean " + names.map { "\"\($0)\"" }.joined(separator: " or ") + "?"
}

/// The names closest to `word` (case aside), best first, at most two; each name once.
/// - Parameter maximumEdits: how far a name may be (`editDistance`); nil for a third of the word's letters, at
///   least one.
/// - Returns: the names at most `maximumEdits` edits away, nearest first, then in alphabetical order.
package func closestNames(to word: String, among names: [String], maximumEdits: Int? = nil) -> [String] {
  let lowered = word.lowercased()
  let limit = maximumEdits ?? Swift.max(1, lowered.count / 3)
  var seen: Set<String> = []
  let scored = names.compactMap { name -> (String, Int)? in
    // The distance is at least the difference in length: names far longer or shorter are never close (and a long
    // word is never measured against every name).
    guard seen.insert(name).inserted, abs(name.count - lowered.count) <= limit else { return nil }
    let distance = editDistance(lowered, name.lowercased())
    return distance <= limit ? (name, distance) : nil
  }
  return scored.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(2).map(\.0)
}

/// The optimal string alignment distance: insertions, deletions, substitutions and transpositions of neighbours each
/// count one (`lsit` is one edit from `list`).
package func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
  for i in 0...a.count { table[i][0] = i }
  for j in 0...b.count { table[0][j] = j }
  for i in 1...a.count {
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      table[i][j] = Swift.min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
        table[i][j] = Swift.min(table[i][j], table[i - 2][j - 2] + 1)
      }
    }
  }
  return table[a.count][b.count]
}
