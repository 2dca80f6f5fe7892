"""How the gateway's GraphQL operations are executed (see `executor`)."""
