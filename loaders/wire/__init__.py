"""The lean call path: DynamoDB's read operations (GetItem, BatchGetItem, Query) sent on
connections of its own (SigV4 signed, orjson bodies, answers parsed by httptools),
configured with the values the botocore client is built with (`endpoint.WireSettings`)."""
