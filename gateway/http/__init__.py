"""GraphQL over HTTP: the view, request parsing and payloads, media types, CORS, persisted
queries and GraphiQL."""
