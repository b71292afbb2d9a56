"""`sediment ping`: is a worker alive and consuming? For health checks and probes.

It asks over Celery's control channel (the broker's pidbox), the way `celery inspect
ping` does, so it needs no Sediment import in the worker beyond what it runs. With
`--local` it asks only the worker of this host, `celery@HOSTNAME` (the name `sediment
worker` takes), and returns as soon as it answers: a liveness probe in the worker's
own container or pod. Without it, every worker that answers within the timeout is
listed: a readiness check of the deployment.
"""

import socket

from celery import Celery


def local_worker() -> str:
    """The node name Celery gives a worker started without `-n` on this host."""
    return f"celery@{socket.gethostname()}"


def ping(app: Celery, destination: list[str] | None, timeout_s: float) -> list[str]:
    """Names of the workers that answered (destination None: every worker)."""
    limit = len(destination) if destination else None
    replies = app.control.ping(destination=destination, timeout=timeout_s, limit=limit)
    return sorted(name for reply in replies or [] for name in reply)
