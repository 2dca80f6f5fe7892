"""The DynamoDB Streams readers: every committed write to the streamed tables becomes a
`Change` on the change feed (`loaders/live/changes`).

- `api.py`: the three DynamoDB Streams calls the readers make, and their error codes;
- `checkpoint.py`: a shard's position, as kept in its lease's `data`;
- `shards.py`: shard discovery (DescribeStream, paging) and the lineage plan: which shard
  may be read now, and from where;
- `reader.py`: one shard read under its lease, at most 4 GetRecords a second;
- `coordinator.py`: the leases (one `locks` item per shard), spread among the replicas.
"""

from loaders.live.streams.api import StreamsApi
from loaders.live.streams.checkpoint import Checkpoint
from loaders.live.streams.coordinator import LeaseCoordinator, lease_key
from loaders.live.streams.observer import StreamObserver

__all__ = ["Checkpoint", "LeaseCoordinator", "StreamObserver", "StreamsApi", "lease_key"]
