"""Standing queries (issue 36): the webhook rules (webhooks.py) and the runner that evaluates
each new publication against the client's watches and delivers their matches (runner.py).
The registry keeps the watches, their outbox and matches (app/registry/watches.py)."""
