"""The `insight-gateway` command and its local tooling: serve, admin commands, the embedded
DynamoDB, demo data and the documented example queries."""
