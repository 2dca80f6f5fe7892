"""What the HTTP and the WebSocket transports share, so that neither imports the other: the
operation as received (`operation`), whether it is a mutation (`kinds`), which text it runs
and whether its sender may run it (`gate`, `persisted_queries`), the lone-surrogate refusal
(`unicode_text`), the response payload with its codes (`payload`) and the protective headers
(`response_headers`)."""
