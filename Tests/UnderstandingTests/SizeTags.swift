import Testing

/// The size of a test (Tests/TestSupport/SizeTags.swift has all three; this target builds without TestSupport, which
/// links the C sandbox): every suite here is in-process logic, run first by `Scripts/test`.
extension Tag {
  /// In-process logic: no child process, no more than a few small files.
  @Tag static var unit: Self
}
