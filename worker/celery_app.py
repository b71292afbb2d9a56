"""The Celery app, configured from settings (never at import time)."""

from dataclasses import dataclass

from celery import Celery

RETAIN_TASK = "sediment.retain.v1"
RETAIN_BATCH_TASK = "sediment.retain_batch.v1"
FEEDBACK_TASK = "sediment.feedback.v1"
FORGET_TASK = "sediment.forget.v1"
PUBLISHED_AT_HEADER = "sediment_published_at"
"""Optional message header: Unix seconds at publish, for the publish-to-visible lag."""


@dataclass(frozen=True)
class CeleryConfig:
    broker_url: str
    queue: str
    soft_time_limit_s: int
    time_limit_s: int
    visibility_timeout_s: int
    concurrency: int = 1
    prefetch: int = 1


def make_app(config: CeleryConfig) -> Celery:
    """Reliability first: late acks, re-queue on worker loss. `prefetch` messages per
    consumer may be taken unacknowledged (the retain tasks batch what they take)."""
    app = Celery("sediment", broker=config.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=config.prefetch,
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        task_ignore_result=True,
        result_backend=None,
        task_default_queue=config.queue,
        task_routes={"sediment.*": {"queue": config.queue}},
        task_soft_time_limit=config.soft_time_limit_s,
        task_time_limit=config.time_limit_s,
        broker_transport_options={"visibility_timeout": config.visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        worker_concurrency=config.concurrency,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        enable_utc=True,
    )
    return app
