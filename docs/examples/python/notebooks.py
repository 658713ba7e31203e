"""The Notes example's notebooks, kept in its app group so that the app and its Intents extension share them.

The group's folder is given to every process of the app: in `initialize` (`appGroups`) to an extension, in
`INTENTHOST_APP_GROUPS` (`group.id=/path:...`) to every process. The notebooks are one JSON document in it,
`notebooks.json`: `{"schemaVersion": 1, "notebooks": {"Home": ["buy milk"], "Work": []}}`. Each reader and writer
holds an exclusive `flock` on `notebooks.lock` while it reads, changes and atomically replaces the document (a
temporary file in the group, `fsync`, `rename`), so the app and the extension never lose each other's changes.
"""

import fcntl
import json
import os

GROUP = "group.com.example.notes"
DOCUMENT = "notebooks.json"
LOCK = "notebooks.lock"
SCHEMA_VERSION = 1
# The notebooks of a new group.
STARTING_NOTEBOOKS = {"Home": [], "Work": []}


def group_folder(app_groups=None):
    """The group's folder: from `initialize`'s `appGroups` (a dict from identifier to path) when given, else from
    the environment."""
    if app_groups and GROUP in app_groups:
        return app_groups[GROUP]
    for entry in os.environ.get("INTENTHOST_APP_GROUPS", "").split(":"):
        identifier, _, path = entry.partition("=")
        if identifier == GROUP and path:
            return path
    raise RuntimeError("%s is not one of this bundle's app groups (see its .entitlements)" % GROUP)


class Notebooks:
    """The notebooks, read under the group's lock: use it as `with Notebooks(folder) as notebooks:`; a change made
    inside the block (`notebooks.add(...)`) is written when the block ends without an error."""

    def __init__(self, folder):
        self.folder = folder
        self.changed = False

    def __enter__(self):
        # O_NOFOLLOW: a link another member planted in the group is refused, never followed.
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        self.lock = os.open(os.path.join(self.folder, LOCK), flags, 0o660)
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        try:
            self.notebooks = self._read()
        except BaseException:
            os.close(self.lock)
            raise
        return self

    def __exit__(self, kind, error, trace):
        try:
            if kind is None and self.changed:
                self._write()
        finally:
            os.close(self.lock)  # releases the lock
        return False

    def _read(self):
        path = os.path.join(self.folder, DOCUMENT)
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return {name: list(notes) for name, notes in STARTING_NOTEBOOKS.items()}
        with os.fdopen(descriptor, "rb") as document:
            content = json.loads(document.read(1 << 20))
        if content.get("schemaVersion") != SCHEMA_VERSION:
            raise RuntimeError("%s has schema version %r, not %d" % (DOCUMENT, content.get("schemaVersion"), 1))
        return content["notebooks"]

    def _write(self):
        temporary = os.path.join(self.folder, ".%s.%d.tmp" % (DOCUMENT, os.getpid()))
        data = json.dumps({"schemaVersion": SCHEMA_VERSION, "notebooks": self.notebooks}, indent=1, sort_keys=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o660)
        try:
            with os.fdopen(descriptor, "wb") as document:
                document.write(data.encode("utf-8") + b"\n")
                document.flush()
                os.fsync(document.fileno())
            os.rename(temporary, os.path.join(self.folder, DOCUMENT))
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise

    # --- What the app and the extension ask.

    def names(self):
        """The notebooks' names, sorted."""
        return sorted(self.notebooks, key=str.casefold)

    def find(self, name):
        """The notebooks whose name is `name` (any case: one), else those it begins (several, one or none)."""
        wanted = name.strip().casefold()
        exact = [notebook for notebook in self.names() if notebook.casefold() == wanted]
        return exact or [notebook for notebook in self.names() if notebook.casefold().startswith(wanted)]

    def notes(self, notebook):
        return list(self.notebooks.get(notebook, []))

    def add(self, notebook, note):
        """Adds `note` to `notebook` (made if new); returns how many notes it then has."""
        self.notebooks.setdefault(notebook, []).append(note)
        self.changed = True
        return len(self.notebooks[notebook])

    def clear(self, notebook):
        """Deletes every note of `notebook`; returns how many there were."""
        count = len(self.notebooks.get(notebook, []))
        self.notebooks[notebook] = []
        self.changed = True
        return count
