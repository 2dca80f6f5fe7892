"""What the tests and the benchmarks share, so that neither imports the other: the servers
they start on 127.0.0.1 (dynalite, redis-server, the gateway itself), the DynamoDB fault
proxy, Prometheus text parsing, tokens, and the bench's realistic users.

Never part of the product: the image copies only `gateway/`, `schema/` and `loaders/`."""
