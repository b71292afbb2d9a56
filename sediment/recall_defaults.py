"""What a recall leaves out when a person or an agent asks: the surfaces' default.

Dense search has no score floor: it returns its nearest memories whatever they are,
so a bank answers any query, "Paris" included, with memories that share no word with
it and are far from it in meaning, ranked by importance and recency alone. An agent
reading them cannot tell that noise from an answer. The CLI's `recall`, the HTTP
route and the MCP tool leave such results out unless the caller asks for them
(`all`) or sets a floor of its own (`min_score`). In-process callers of the recall
service (benchmarks, `RecallRequest` as built in Python) keep every result: the
evidence rule is applied only where this default is.
"""

from contracts.recall import RecallRequest


def surface_default(request: RecallRequest) -> RecallRequest:
    """`all` as the caller gave it; unset, false (results without topical evidence
    left out) unless a `min_score` above 0 sets the floor instead."""
    if request.all is not None:
        return request
    return request.model_copy(update={"all": request.min_score > 0})


LOW_CONFIDENCE = "low confidence: no result is close to the query in meaning"
"""What the surfaces say when `RecallResponse.low_confidence` is set."""


def left_out_note(count: int, ask: str) -> str:
    """How many results the evidence rule left out, and how to see them (`ask`: the
    surface's spelling of `all`)."""
    results = "result" if count == 1 else "results"
    return f"{count} {results} without topical evidence left out ({ask} shows them)"
