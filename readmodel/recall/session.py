"""Session affinity: what was told together is recalled together.

Memories told within `window` of one another (one conversation, one session) tend to
be needed together: a question about a plan needs the plan's steps, told in the same
session. After fusion, each of the `anchors` best candidates lends `weight` x its own
score to every other candidate told within `window` of it (the largest loan counts,
never more than once), so a session's weaker evidence rises past strangers.
"""

from datetime import timedelta

from readmodel.recall.candidate import Candidate, replace
from readmodel.recall.order import sort_key


def session_affinity(
    candidates: list[Candidate], weight: float, anchors: int, window: timedelta
) -> list[Candidate]:
    if weight <= 0 or anchors <= 0 or len(candidates) < 2:
        return candidates
    top = sorted(candidates, key=sort_key)[:anchors]
    out = []
    for c in candidates:
        t = c.record.occurred_at
        loans = [a.score for a in top if a.id != c.id and abs(a.record.occurred_at - t) <= window]
        bonus = weight * max(loans) if loans else 0.0
        out.append(replace(c, score=c.score + bonus) if bonus else c)
    return out
