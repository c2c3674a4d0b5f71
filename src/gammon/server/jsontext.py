"""JSON text for the wire and the bus, with orjson: the server writes one ``update`` per
action and socket variant and one bus message per action, and the standard library's
encoder was a tenth of the event loop's time under load (``docs/server.md`` § Load).

Every server message is a plain dict of str keys, lists, numbers, None and bools (the views
of :mod:`gammon.views`), which both encoders write alike; a float is written in the
shortest form that reads back the same, as :func:`json.dumps` does.

>>> dumps({"type": "pong", "id": 3, "t": 0.5, "x": None})
'{"type":"pong","id":3,"t":0.5,"x":null}'
>>> loads('{"a": [1, 2]}')
{'a': [1, 2]}
"""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> str:
    """``value`` as compact JSON text."""
    return orjson.dumps(value).decode()


def loads(text: str | bytes) -> Any:
    """The value of JSON ``text`` (raises :class:`ValueError` on bad JSON)."""
    return orjson.loads(text)
