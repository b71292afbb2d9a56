"""A Python client of Sediment's HTTP API, typed with the contracts.

```python
from sediment.client import SedimentClient

with SedimentClient("http://127.0.0.1:8000", token="...", bank="notes") as memory:
    memory.retain("Alice moved to Seattle.", key="alice.city")
    print(memory.recall("Where does Alice live?").results[0].text)
```

`AsyncSedimentClient` is the same for asyncio. Retains are idempotent (event ids are
fixed before the first attempt), so transport errors, 429 and 503 are retried with
backoff (`Retry`); what is still an error raises a `SedimentError`.
"""

from contracts.events import RetainItem
from sediment.client.aio import AsyncSedimentClient
from sediment.client.calls import item
from sediment.client.errors import (
    AuthError,
    NotFound,
    SedimentError,
    Unavailable,
    ValidationFailed,
)
from sediment.client.retry import Retry
from sediment.client.sync import SedimentClient

__all__ = [
    "AsyncSedimentClient",
    "AuthError",
    "NotFound",
    "RetainItem",
    "Retry",
    "SedimentClient",
    "SedimentError",
    "Unavailable",
    "ValidationFailed",
    "item",
]
