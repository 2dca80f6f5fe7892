"""The `USERS#<user_id>` partition of site-pave: the collection of a user's entities."""

from __future__ import annotations

from loaders.entity import Collection, KeyTemplate
from loaders.table import Table

#: Read whole, it costs 3.5 units a user, as `make bench` measured it on its realistic users
#: (dynalite's ReturnConsumedCapacity, eventually consistent), and returns their 112 items
#: (support/seed.py: two mines' 48 recurring and 16 ritual rows, 30 scores, 12 months, 3
#: pages, the verification, the alert and the income): see `schema.access_plan`.
USERS = Collection("users", Table.PAVE, KeyTemplate("USERS#{user_id}"), read_units=3.5, items=112)
