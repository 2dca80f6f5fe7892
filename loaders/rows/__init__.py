"""One frozen row dataclass per entity: `from_item()` reads a python-value item, `to_item()`
writes one. Resolvers see rows, never raw items."""
