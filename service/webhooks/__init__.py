"""Signed webhooks for push (issue 27): operator-configured endpoints, a durable per-endpoint queue in
Redis, and the dispatcher every replica runs. Producers call :func:`outbox.enqueue`."""
