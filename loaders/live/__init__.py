"""Live data, loaders side: every committed write to the streamed tables, as the replicas
hear it.

- `streams/`: the DynamoDB Streams readers, one shard under one lease among the replicas;
- `changes/`: the change feed they publish to (in memory, or Redis shared by the
  replicas), which the subscriptions' hub and the coherent cache listen to.

Each part shows its own surface in its `__init__.py`; importing one does not load the
other (a process may want the feed without the readers).
"""

__all__: list[str] = []
