#!/usr/bin/env python3
"""Read and write an IntentHost app-group document from Python, without the Swift SDK.

This is the format of AppGroup/README.md ("The on-disk format, for extensions in any language"), written from that
page alone, with the standard library only (fcntl.flock, zlib.crc32). Tests/AppGroupStoreTests/JournalFormatTests.swift
checks it against the Swift store both ways.

In an extension or an app, the host names the groups in INTENTHOST_APP_GROUPS:

    import appgroup
    notes = appgroup.Document(appgroup.group_path("group.com.example.notes"), "notes.json")
    content, sequence = notes.read()                   # None, 0 when the document does not exist yet
    notes.update(lambda content: (content or {"notes": []}) | {"count": 1})   # the new content, under the lock
    defaults = appgroup.shared_defaults("group.com.example.notes")         # UserDefaults(suiteName:)
    defaults.update(lambda values: (values or {}) | {"lastNote": "milk"})

From a shell, for tests and for looking at a document:

    appgroup.py read FOLDER NAME                       # {"content": ..., "sequence": N} on stdout
    appgroup.py write FOLDER NAME JSON [--checkpoint]  # replace the content (one update)
    appgroup.py increment FOLDER NAME KEY [COUNT]      # COUNT updates, each adding 1 to the integer KEY
    appgroup.py hold FOLDER NAME READY GO              # lock, read, make READY, wait for GO to exist, add 1 to
                                                       # "count", commit, unlock (to show that the lock is shared)
"""

import fcntl
import json
import os
import stat
import sys
import time
import zlib

MAGIC = b"IHJ1 "
HEADER_SIZE = 40
# When a writer writes a checkpoint instead of a record (the Swift store's rule; any writer may checkpoint sooner).
CHECKPOINT_EVERY_RECORDS = 256
JOURNAL_LIMIT_BYTES = 1 << 20


class FormatError(Exception):
    """The document cannot be read: a corrupt file, a newer schema, or something planted in place of a file."""


def group_path(identifier):
    """The folder of an app group the bundle's entitlements grant (INTENTHOST_APP_GROUPS: `group.a=/path:group.b=/path`)."""
    for entry in os.environ.get("INTENTHOST_APP_GROUPS", "").split(":"):
        name, _, path = entry.partition("=")
        if name == identifier and path:
            return path
    raise KeyError(f"{identifier} is not one of this bundle's app groups (INTENTHOST_APP_GROUPS)")


def shared_defaults(identifier):
    """The group's shared defaults (UserDefaults(suiteName:)): Library/Preferences/GROUP.json in its folder."""
    return Document(os.path.join(group_path(identifier), "Library", "Preferences"), identifier + ".json")


def _record(payload, sequence):
    """One journal record: the 40-byte header, the payload, a newline."""
    header = b"IHJ1 %08x %08x %016x " % (len(payload), zlib.crc32(payload), sequence)
    return header + payload + b"\n"


def _hex(data, start, count):
    """A fixed-width lower-case hexadecimal number, or None."""
    digits = data[start:start + count]
    if len(digits) != count or any(byte not in b"0123456789abcdef" for byte in digits):
        return None
    return int(digits, 16)


def chain(journal, checkpoint_sequence):
    """The current records of the journal bytes: (sequence, crc, payload, end) from offset 0, the first of sequence
    checkpoint_sequence + 1, each the next, until a header does not parse, a length runs past the end, the byte after
    a payload is not a newline, or a sequence is not the next one."""
    records = []
    offset = 0
    expected = checkpoint_sequence + 1
    while offset + HEADER_SIZE <= len(journal):
        if journal[offset:offset + 5] != MAGIC:
            break
        length = _hex(journal, offset + 5, 8)
        crc = _hex(journal, offset + 14, 8)
        sequence = _hex(journal, offset + 23, 16)
        if None in (length, crc, sequence) or journal[offset + 13] != 0x20 or journal[offset + 22] != 0x20:
            break
        if journal[offset + 39] != 0x20 or sequence != expected:
            break
        start = offset + HEADER_SIZE
        end = start + length + 1
        if end > len(journal) or journal[end - 1] != 0x0A:
            break
        records.append((sequence, crc, journal[start:end - 1], end))
        offset = end
        expected = sequence + 1
    return records


class Document:
    """One JSON document in an app-group folder: NAME (the checkpoint), .NAME.journal, .NAME.lock."""

    def __init__(self, folder, name, schema_version=1):
        if "/" in name or name.startswith(".") or not name:
            raise ValueError("a document name is a plain file name that does not start with '.'")
        self.folder = folder
        self.name = name
        self.schema_version = schema_version

    # The files, opened relative to the folder, following no link, refusing anything but a regular file.

    def _open(self, directory, name, flags, mode=0o660):
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=directory)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise FormatError(f"{os.path.join(self.folder, name)} is not a regular file")
        return fd

    def _make(self, directory, name, flags):
        """Opens name, making it when missing (mode 0660; exactly 0660 in a set-group-ID folder); returns (fd, made)."""
        try:
            return self._open(directory, name, flags), False
        except FileNotFoundError:
            pass
        try:
            fd = self._open(directory, name, flags | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return self._open(directory, name, flags), False
        if os.fstat(directory).st_mode & stat.S_ISGID:
            os.fchmod(fd, 0o660)
        return fd, True

    def _read_file(self, directory, name):
        """The whole file, or None when it does not exist."""
        try:
            fd = self._open(directory, name, os.O_RDONLY)
        except FileNotFoundError:
            return None
        except OSError as error:  # ELOOP: a symbolic link planted in its place
            raise FormatError(f"{os.path.join(self.folder, name)}: {error.strerror}") from error
        with os.fdopen(fd, "rb") as file:
            return file.read()

    def _lock(self, directory, exclusive):
        fd, _ = self._make(directory, "." + self.name + ".lock", os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        return fd

    # Reading.

    def _envelope(self, data, where):
        try:
            envelope = json.loads(data)
            version = envelope["schemaVersion"]
            content = envelope["content"]
        except (ValueError, KeyError, TypeError) as error:
            raise FormatError(f"{where}: not a document ({error})") from error
        if not isinstance(version, int) or version > self.schema_version:
            raise FormatError(f"{where}: schema version {version}, newer than {self.schema_version}")
        return content, envelope.get("sequence") or 0

    def _state(self, directory):
        """(content, sequence, journal records since the checkpoint, where the newest intact record ends, journal
        size or None when there is no journal), read under a lock the caller holds."""
        content, sequence = None, 0
        checkpoint = self._read_file(directory, self.name)
        if checkpoint is not None:
            content, sequence = self._envelope(checkpoint, self.name)
        checkpoint_sequence = sequence
        journal = self._read_file(directory, "." + self.name + ".journal")
        end = 0
        if journal is not None:
            records = chain(journal, checkpoint_sequence)
            intact = [record for record in records if zlib.crc32(record[2]) == record[1]]
            if intact:
                record_sequence, _, payload, end = intact[-1]
                content, sequence = self._envelope(payload, "." + self.name + ".journal")
                if sequence != record_sequence:
                    raise FormatError(f"a record says sequence {sequence} in a header of {record_sequence}")
        return content, sequence, sequence - checkpoint_sequence, end, None if journal is None else len(journal)

    def read(self):
        """(content, sequence): the newest state, or (None, 0) when the document does not exist."""
        directory = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            exists = any(
                os.path.lexists(os.path.join(self.folder, name)) for name in (self.name, "." + self.name + ".journal"))
            if not exists:
                return None, 0  # read as empty, without making the lock file
            lock = self._lock(directory, exclusive=False)
            try:
                content, sequence, _, _, _ = self._state(directory)
                return content, sequence
            finally:
                os.close(lock)  # closing the last descriptor of the lock file releases the flock
        finally:
            os.close(directory)

    # Writing.

    def update(self, change, checkpoint=False, hold=None):
        """Commits change(content) as the next update, under the exclusive lock; content is None for a new document.
        Returns the new sequence. `checkpoint` writes a checkpoint instead of a journal record. `hold`, for tests, is
        called after the state was read, with the lock held."""
        os.makedirs(self.folder, mode=0o770, exist_ok=True)
        directory = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            lock = self._lock(directory, exclusive=True)
            try:
                content, sequence, records, end, journal_size = self._state(directory)
                if hold:
                    hold()
                new = change(content)
                envelope = {"content": new, "schemaVersion": self.schema_version, "sequence": sequence + 1}
                payload = json.dumps(envelope, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
                record = _record(payload, sequence + 1)
                if (checkpoint or records + 1 >= CHECKPOINT_EVERY_RECORDS
                        or end + len(record) > max(journal_size or 0, JOURNAL_LIMIT_BYTES)):
                    self._write_checkpoint(directory, envelope)
                else:
                    self._append(directory, record, end)
                return sequence + 1
            finally:
                os.close(lock)
        finally:
            os.close(directory)

    def _append(self, directory, record, offset):
        """The record at `offset` (over old records, zeros or a torn tail), synced; the folder too for a new journal."""
        fd, made = self._make(directory, "." + self.name + ".journal", os.O_RDWR)
        try:
            if os.fstat(fd).st_nlink != 1:
                raise FormatError(f".{self.name}.journal has more than one name; a journal has one name only")
            written = 0
            while written < len(record):
                written += os.pwrite(fd, record[written:], offset + written)
            os.fdatasync(fd)
        finally:
            os.close(fd)
        if made:
            os.fsync(directory)

    def _write_checkpoint(self, directory, envelope):
        """A new .NAME.tmp-PID, synced, renamed over NAME; then the folder synced."""
        temporary = "." + self.name + ".tmp-" + str(os.getpid())
        try:
            os.unlink(temporary, dir_fd=directory)  # a leftover of a killed writer of this pid
        except FileNotFoundError:
            pass
        fd = self._open(directory, temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            if os.fstat(directory).st_mode & stat.S_ISGID:
                os.fchmod(fd, 0o660)
            data = json.dumps(envelope, indent=2, sort_keys=True, ensure_ascii=False).encode() + b"\n"
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(temporary, dir_fd=directory)
            raise
        os.close(fd)
        os.rename(temporary, self.name, src_dir_fd=directory, dst_dir_fd=directory)
        os.fsync(directory)


def _main(arguments):
    if len(arguments) >= 3 and arguments[0] == "read":
        content, sequence = Document(arguments[1], arguments[2]).read()
        print(json.dumps({"content": content, "sequence": sequence}, sort_keys=True))
    elif len(arguments) in (4, 5) and arguments[0] == "write":
        value = json.loads(arguments[3])
        checkpoint = arguments[4:] == ["--checkpoint"]
        print(Document(arguments[1], arguments[2]).update(lambda _: value, checkpoint=checkpoint))
    elif len(arguments) in (4, 5) and arguments[0] == "increment":
        document = Document(arguments[1], arguments[2])
        key = arguments[3]
        for _ in range(int(arguments[4]) if len(arguments) == 5 else 1):
            document.update(lambda content: (content or {}) | {key: (content or {}).get(key, 0) + 1})
    elif len(arguments) == 5 and arguments[0] == "hold":
        ready, go = arguments[3], arguments[4]

        def hold():
            open(ready, "w").close()
            while not os.path.exists(go):
                time.sleep(0.01)

        Document(arguments[1], arguments[2]).update(
            lambda content: (content or {}) | {"count": (content or {}).get("count", 0) + 1}, hold=hold)
    else:
        sys.stderr.write(__doc__)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
