"""Live data, loaders side: every committed write to the streamed tables, as the replicas
hear it.

- `streams/`: the DynamoDB Streams readers, one shard under one lease among the replicas;
- `changes/`: the change feed they publish to (in memory, or Redis shared by the
  replicas), which the subscriptions' hub and the coherent cache listen to;
- `feed_watch.py`: the cache's watch of the feed, whether it is whole (connected, every
  streamed table heard, no shard lagging), without which the cache is not trusted.

Each part shows its own surface (its `__all__`); importing one does not load
the others (a process may want the feed without the readers).
"""

__all__: list[str] = []
