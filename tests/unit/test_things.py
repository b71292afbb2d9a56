"""A known thing's date or status said anew (`readmodel.reading.things`): which pairs the
reader relates, why, that they meet by key, and that consolidation supersedes by it."""

import pytest

from contracts.memory import Relation
from readmodel.reading import read, thing_keys, thing_update
from tests.helpers import memory, verdict
from worker.consolidation.features import stored_fields

Pair = tuple[str, str]

UPDATES: list[tuple[Pair, str]] = [
    (("The budget review is on May 3.", "The budget review has been pushed back to June 9."),
     "date '05-03' -> '06-09'"),
    (("Status of the data migration: on track.", "Update on the data migration: it's cancelled."),
     "status 'track' -> 'cancel'"),
    (("User: My visa interview is on March 4.", "User: My visa interview got pushed to March 18."),
     "date '03-04' -> '03-18'"),
    (("The merger is pending.", "The merger got called off."), "status 'pend' -> 'call off'"),
    (("User: The lease renewal is under negotiation.", "User: The lease renewal was signed."),
     "-> 'sign'"),
    (("The kitchen refit is on April 2.", "They moved the kitchen refit back to April 20."),
     "date '04-02' -> '04-20'"),
    (("The gala is on October 4.", "The gala date moved to October 11."),
     "date '10-04' -> '10-11'"),
    (("The launch is on May 3.", "The launch was moved from May 3 to May 10."),
     "date '05-03' -> '05-10'"),
    (("The launch is on May 3.", "They moved the launch from May 3 to May 10."),
     "date '05-03' -> '05-10'"),
    (("The quarterly report is on June 2.", "They delayed the quarterly report until December 1."),
     "date '06-02' -> '12-01'"),
    (("User: The project is on track.", "User: The project has been cancelled."),
     "status 'track' -> 'cancel'"),
    (("The bathroom remodel is on hold.", "As of today the bathroom remodel is approved."),
     "status 'hold' -> 'approv'"),
    (("The CRM rollout is finished.", "Side note, the CRM rollout is on hold."),
     "status 'finish' -> 'hold'"),
    (("The deadline for Gannet is September 1.", "The deadline for Gannet is January 20."),
     "date '09-01' -> '01-20'"),
    (("The data migration is on track.", "We finished the data migration."),
     "status 'track' -> 'finish"),
    (("The design review is on June 2.", "The client moved the design review to June 9."),
     "date '06-02' -> '06-09'"),
    (("The billing rewrite is on track.", "The billing rewrite has stalled."),
     "status 'track' -> 'stall'"),
    (("The billing rewrite is on track.", "The billing rewrite fell through."),
     "status 'track' -> 'fall'"),
    (("The deadline is May 3.", "The deadline was extended to June 3."),
     "date '05-03' -> '06-03'"),
    (("My visa expires on June 30.", "They extended my visa until August 30."),
     "date '06-30' -> '08-30'"),
    (("The sale ends Friday.", "The sale was extended through Sunday."),
     "date 'friday' -> 'sunday'"),
    (("The submission deadline is the 7th.", "The submission deadline moved to the 14th."),
     "date 'day 7' -> 'day 14'"),
    (("The payment is due on May 3.", "The payment due date moved to May 10."),
     "date '05-03' -> '05-10'"),
    (("The office move is scheduled for May 3.", "The office move will now take place on May 10."),
     "date '05-03' -> '05-10'"),
    (("The billing rewrite is on track.", "The billing rewrite got the green light."),
     "status 'track' -> 'get green light'"),
    (("The billing rewrite is on track.", "Bad news: the billing rewrite was cancelled."),
     "status 'track' -> 'cancel'"),
    (("The dentist appointment is on May 3.", "The dentist appointment got bumped to the 10th."),
     "date '05-03' -> 'day 10'"),
    (("The dentist appointment is on May 3.",
      "Quick note - the dentist appointment moved to May 10."),
     "date '05-03' -> '05-10'"),
    (("The audit is on track.", "Now that the audit is done, can we relax?"),
     "status 'track' -> 'do'"),
]  # fmt: skip

STAYS: list[Pair] = [
    ("The launch is on May 3.", "The launch party is on May 9."),
    ("The audit is on May 3.", "The audit could slip to June 9."),
    ("User: My deadline is May 3.", "User: My deadline is tight now."),
    ("User: My manager is Tom.", "User: My manager is busy now."),
    ("The merger is pending.", "The merger was discussed last year."),
    ("The merger is pending.", "The merger was signed on May 3."),
    ("The gala is on October 4.", "The gala dinner moved to October 11."),
    ("The gala is on October 4.", "We talked the gala over on October 11."),
    ("The launch is on May 3.", "The launch party moved from May 3 to May 10."),
    ("User: My flight is on May 3.", "User: My return flight is on May 9."),
    ("User: My flight is on May 3.", "User: My sister's flight is on May 9."),
    ("User: The project is on track.", "User: The project moved to a new Slack channel."),
    ("The launch is on May 3.", "The launch will be on May 10."),
    ("The audit is on track.", "The audit will be finished now."),
    ("The launch is on May 3.", "The launch isn't on May 10."),
    ("The kitchen is clean.", "The kitchen is small."),
    ("Dan is tired.", "Dan is happy now."),
    ("Plan for the party: book the venue.", "Plan for the party: send the invitations."),
    ("They love the Falcon project.", "They delayed the Falcon project."),
    ("The office is closed on December 24.", "The office is closed on December 26."),
    ("The shop closes early on December 24.", "The shop closes early on December 31."),
    ("The lease renewal was signed on May 3.", "The lease renewal was signed on May 9."),
    ("The audit is on track.", "Is the audit done?"),
    ("The garden project is on track.", "The garden project needs more compost."),
    ("The billing rewrite is on track.", "Back then, the billing rewrite stalled."),
    ("The billing rewrite is on track.", "The billing rewrite was on hold last year."),
]  # fmt: skip


@pytest.mark.parametrize(("pair", "why"), UPDATES)
def test_a_things_newer_date_or_status_replaces_the_older(pair: Pair, why: str) -> None:
    older, newer = pair
    found = thing_update(read(older), read(newer))
    assert found is not None and why in found, (older, newer, found)
    assert set(thing_keys(read(older), query=True)) & set(thing_keys(read(newer)))
    assert set(thing_keys(read(newer), query=True)) & set(thing_keys(read(older)))
    assert verdict(older, newer) is Relation.EVOLVED_INTO


@pytest.mark.parametrize("pair", STAYS)
def test_another_thing_a_plan_a_possibility_or_a_happening_replaces_nothing(pair: Pair) -> None:
    older, newer = pair
    assert thing_update(read(older), read(newer)) is None
    assert verdict(older, newer) is None


def test_a_thing_is_named_by_a_common_noun_not_a_name_or_pronoun() -> None:
    """A person's name, a pronoun or "the afternoon" said in passing is no thing keyed."""
    assert thing_keys(read("Ana is on holiday until May 3.", ["Ana"])) == ()
    assert thing_keys(read("She is busy.", ["Ana"])) == ()
    assert thing_keys(read("Ana naps in the afternoon.", ["Ana"])) == ()
    assert thing_keys(read("The budget review is on May 3.")) == ("~thing:budget review|date",)
    assert thing_keys(read("Status of the CRM rollout: at risk.")) == (
        "~thing:crm rollout|said",
        "~thing:crm rollout|status",
    )


def test_past_acts_on_one_thing_do_not_read_one_another() -> None:
    """ "Ana fixed the car" and "Dan washed the car" never relate (a past status replaces
    nothing), so neither reads the other by key, however many of them a bank holds; both
    read the present statuses they may replace."""
    fixed, washed = read("Ana fixed the car."), read("Dan washed the car.")
    assert not set(thing_keys(washed, query=True)) & set(thing_keys(fixed))
    assert set(thing_keys(washed, query=True)) & set(thing_keys(read("The car is in the shop.")))


def test_the_keys_are_stored_with_the_memory() -> None:
    keys = stored_fields("The gala date moved to October 11.", [])["slot_keys"]
    assert "~thing:gala|date" in keys
    assert memory("The gala date moved to October 11.").slot_keys is not None
