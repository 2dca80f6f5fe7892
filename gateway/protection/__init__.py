"""Per-client protection, the policy the HTTP view applies: the trusted documents a request may
run, the budgets of cost points each principal is charged, and the charge itself (a schema
extension that reuses the cost limit's measure)."""
