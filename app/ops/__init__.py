"""Running the service: a spawned child's lifeline, logs as an event stream, Prometheus
metrics."""
