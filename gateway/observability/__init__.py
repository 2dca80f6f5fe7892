"""What an operator sees: Prometheus metrics, JSON logs, tracing, health and readiness."""
