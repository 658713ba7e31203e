import Testing

/// The size of a test, by what it runs: every suite carries one. `Scripts/test` runs the unit tests first, then the
/// process tests, then the end-to-end tests, so that a failure of the logic shows within seconds.
extension Tag {
  /// In-process logic: no child process, no more than a few small files.
  @Tag public static var unit: Self
  /// Starts processes of its own, or works real pipes, descriptors and files hard (the store's processes, the
  /// transport, the supervisor), in the test process.
  @Tag public static var process: Self
  /// Runs the built `assistant` binary (and the examples and fixtures it launches).
  @Tag public static var endToEnd: Self
}
