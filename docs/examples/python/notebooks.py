"""The Notes example's notebooks, kept in its app group so that the app and its Intents extension share them.

They are one app-group document, `notebooks.json`, in the format every IntentHost app shares (AppGroup/README.md),
read and written with `appgroup.py`: `{"notebooks": {"Home": ["bread"], "Work": []}}`. Every change is one update
under the group's lock, so the app and the extension never lose each other's changes, and
`assistant defaults read group.com.example.notes --document notebooks.json` shows them.
"""

import appgroup

GROUP = "group.com.example.notes"
DOCUMENT = "notebooks.json"
# The notebooks of a new group.
STARTING_NOTEBOOKS = {"Home": [], "Work": []}


def _notebooks(content):
    """The notebooks of the document's content (None for a document not written yet)."""
    if content is None:
        return {name: list(notes) for name, notes in STARTING_NOTEBOOKS.items()}
    return content["notebooks"]


class Notebooks:
    """The notebooks as they were when it was made (`names`, `find`, `notes`), and the changes (`add`, `clear`),
    each made to the newest state, under the lock.

    - `folder`: the group's folder: from `initialize`'s `appGroups` in an extension, or `appgroup.group_path(GROUP)`
      (the environment's INTENTHOST_APP_GROUPS), the default.
    """

    def __init__(self, folder=None):
        self.document = appgroup.Document(folder or appgroup.group_path(GROUP), DOCUMENT)
        content, _ = self.document.read()
        self.notebooks = _notebooks(content)

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

    def _change(self, change):
        """Applies change(notebooks) to the newest notebooks, as one update; returns what `change` returned."""
        result = []

        def update(content):
            notebooks = _notebooks(content)
            result.append(change(notebooks))
            self.notebooks = notebooks
            return {"notebooks": notebooks}

        self.document.update(update)
        return result[-1]

    def add(self, notebook, note):
        """Adds `note` to `notebook` (made if new); returns how many notes it then has."""

        def add(notebooks):
            notebooks.setdefault(notebook, []).append(note)
            return len(notebooks[notebook])

        return self._change(add)

    def clear(self, notebook):
        """Deletes every note of `notebook`; returns how many there were."""

        def clear(notebooks):
            count = len(notebooks.get(notebook, []))
            notebooks[notebook] = []
            return count

        return self._change(clear)
