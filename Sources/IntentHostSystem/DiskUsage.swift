#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What a folder holds, measured below it without following a symbolic link: its entries and the disk space they
/// take. For folders that untrusted processes write (containers, app groups).
public struct DiskUsage: Sendable, Equatable {
  /// Bytes allocated on disk (`st_blocks` × 512, as `du` counts): a sparse file counts what it really takes.
  public var bytes: Int
  /// Entries below the folder, of every kind: files, folders, links, anything else.
  public var entries: Int
  /// Whether the walk stopped before the end: a limit was passed (the counts are then at least that much), or the
  /// folders nest deeper than the walk goes (`tooDeep`).
  public var isPartial: Bool
  /// Whether folders nest deeper than `measure`'s `depthLimit`.
  public var tooDeep: Bool

  /// Measures the folder at `path`, stopping as soon as `bytes` or `entries` is passed, or at a folder `depthLimit`
  /// levels down. Every folder is opened relative to its parent's descriptor with `O_NOFOLLOW | O_DIRECTORY`, so a
  /// link planted in the folder is counted, never followed; an entry that vanishes during the walk is skipped.
  /// - Throws: `SystemError` when `path` itself cannot be opened as a folder (a link included).
  public static func measure(_ path: String, bytes byteLimit: Int, entries entryLimit: Int, depthLimit: Int = 64)
    throws(SystemError) -> DiskUsage
  {
    let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
    let root = open(path, flags)
    if root < 0 { throw SystemError.current("open", path) }
    guard let rootStream = fdopendir(root) else {
      let error = SystemError.current("fdopendir", path)
      close(root)
      throw error
    }
    var usage = DiskUsage(bytes: 0, entries: 0, isPartial: false, tooDeep: false)
    var stack: [OpaquePointer] = [rootStream]  // open folders, deepest last; each closes its descriptor
    defer { for stream in stack { closedir(stream) } }
    while let stream = stack.last {
      errno = 0
      guard let entry = readdir(stream) else {
        closedir(stack.removeLast())
        continue
      }
      let name = entry.namePointer
      if strcmp(name, ".") == 0 || strcmp(name, "..") == 0 { continue }
      let folder = dirfd(stream)
      var status = stat()
      let found = fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW)
      guard found == 0 else { continue }  // removed meanwhile
      usage.entries += 1
      usage.bytes += Int(status.st_blocks) * 512
      if usage.entries > entryLimit || usage.bytes > byteLimit {
        usage.isPartial = true
        return usage
      }
      guard (status.st_mode & S_IFMT) == S_IFDIR else { continue }
      if stack.count >= depthLimit {
        usage.isPartial = true
        usage.tooDeep = true
        return usage
      }
      let child = openat(folder, name, flags)
      guard child >= 0 else { continue }  // replaced by a link or removed meanwhile: counted, not entered
      guard let childStream = fdopendir(child) else {
        close(child)
        continue
      }
      stack.append(childStream)
    }
    return usage
  }
}
