"""The Pantry example's pantry, kept in its app group so that the app and its App Intents extension share it.

It is one app-group document, `pantry.json`, in the format every IntentHost app shares (AppGroup/README.md), read
and written with `appgroup.py`: `{"items": {"butter": {"name": "Butter", "shelf": "fridge", "count": 3, ...}},
"orders": [{"number": 1, "item": "milk", "slot": "evening"}]}`. A group where nothing was written yet has no
document, and reads as the starting pantry. Every change is one update under the group's lock, so the app and the
extension never lose each other's changes, and `assistant defaults read group.com.example.pantry --document
pantry.json` shows them.
"""

import appgroup

GROUP = "group.com.example.pantry"
DOCUMENT = "pantry.json"
# The shelves (the AppEnum Shelf's cases), in order, with their titles.
SHELVES = {"fridge": "Fridge", "cupboard": "Cupboard", "freezer": "Freezer"}
# The delivery slots (the AppEnum DeliverySlot's cases) with their titles.
SLOTS = {"morning": "Morning", "afternoon": "Afternoon", "evening": "Evening"}
# What a new pantry holds, by identifier (the AppEntity ItemEntity's identifiers).
STARTING_ITEMS = {
    "basmati": {"name": "Basmati Rice", "shelf": "cupboard", "count": 2, "price": "€2.40"},
    "brownrice": {"name": "Brown Rice", "shelf": "cupboard", "count": 0, "price": "€2.10"},
    "oatmilk": {"name": "Oat Milk", "shelf": "fridge", "count": 1, "price": "€1.80"},
    "butter": {"name": "Butter", "shelf": "fridge", "count": 3, "price": "€2.90"},
    "peas": {"name": "Garden Peas", "shelf": "freezer", "count": 1, "price": "€1.50"},
    "icecream": {"name": "Vanilla Ice Cream", "shelf": "freezer", "count": 2, "price": "€3.20"},
}
# An item with at most this many left is running low.
LOW = 1


def _content(content):
    """The document's content (None for a document not written yet: the starting pantry)."""
    if content is None:
        return {"items": {key: dict(item) for key, item in STARTING_ITEMS.items()}, "orders": []}
    return content


class Pantry:
    """The pantry as it was when it was made (`items`, `item`, `find`, ...), and the changes (`add`, `take`,
    `order`), each made to the newest state, under the lock.

    - `folder`: the group's folder: from `initialize`'s `appGroups` in the extension, or
      `appgroup.group_path(GROUP)` (the environment's INTENTHOST_APP_GROUPS) in the app, the default.
    """

    def __init__(self, folder=None):
        self.document = appgroup.Document(folder or appgroup.group_path(GROUP), DOCUMENT)
        content, _ = self.document.read()
        self.content = _content(content)

    def items(self):
        """(identifier, item) of every item, by shelf (in the order of SHELVES), then by name."""
        shelves = list(SHELVES)
        return sorted(self.content["items"].items(), key=lambda pair: (shelves.index(pair[1]["shelf"]), pair[1]["name"]))

    def item(self, identifier):
        return self.content["items"].get(identifier)

    def find(self, words):
        """The items whose name has every one of `words` (any case): "rice" is both rices."""
        wanted = words.casefold().split()
        return [(key, item) for key, item in self.items() if all(w in item["name"].casefold().split() for w in wanted)]

    def on_shelf(self, shelf):
        return [(key, item) for key, item in self.items() if item["shelf"] == shelf]

    def running_low(self):
        return [(key, item) for key, item in self.items() if item["count"] <= LOW]

    def orders(self):
        return list(self.content["orders"])

    def _update(self, change):
        """Applies change(content), which changes it in place, to the newest content, as one update."""

        def update(content):
            self.content = _content(content)
            change(self.content)
            return self.content

        self.document.update(update)

    def add(self, identifier, count):
        """Adds `count` to the item; returns how many there are now."""

        def add(content):
            content["items"][identifier]["count"] += count

        self._update(add)
        return self.item(identifier)["count"]

    def take(self, identifier):
        """Takes one of the item; returns how many are left, or None (and writes nothing) when there is none."""
        if self.item(identifier)["count"] == 0:
            return None
        taken = []

        def take(content):
            item = content["items"][identifier]
            if item["count"] > 0:  # another process may have taken the last one meanwhile
                item["count"] -= 1
                taken.append(item["count"])

        self._update(take)
        return taken[0] if taken else None

    def order(self, identifier, slot):
        """Records an order of the item for the delivery slot; returns its number."""

        def order(content):
            content["orders"].append({"number": len(content["orders"]) + 1, "item": identifier, "slot": slot})

        self._update(order)
        return self.content["orders"][-1]["number"]
