"""The server's shutdown (`sediment.serve.Hosted.stop`): a step that fails is logged and
the next still runs, so the store is closed even when the worker cannot close its
broker channel (Redis gone at shutdown)."""

from typing import Any, cast

from structlog.testing import capture_logs

from sediment.serve import Hosted, InProcessWorker


class _Failing:
    def stop(self) -> None:
        raise AttributeError("'NoneType' object has no attribute 'hostname'")


def test_a_failing_worker_stop_still_closes_the_store() -> None:
    closed: list[bool] = []
    hosted = Hosted(
        cast(InProcessWorker, _Failing()), [], lambda: None, lambda: closed.append(True)
    )
    with capture_logs() as logs:
        hosted.stop()
        hosted.stop()
    assert closed == [True]
    events: list[dict[str, Any]] = [
        e for e in logs if e["event"] in ("stop_step_failed", "stopped")
    ]
    assert events[0] == {
        "event": "stop_step_failed",
        "step": "worker",
        "error_class": "AttributeError",
        "log_level": "warning",
    }
    assert events[1]["event"] == "stopped" and events[1]["failed"] == ["worker"]
    assert len(events) == 2
