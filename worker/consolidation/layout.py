"""The layout of the derived fields consolidation writes and later reads back.

Consolidation finds what a new memory may relate to through fields it derived when it
stored the older ones: slot keys (updates.py) and entity keys (the store's payload).
When a version derives them differently, points stored by an earlier one cannot be
found the new way (a retraction would miss the facts it retracts), and nothing in a
query says so. So a store records the layout its points follow, and a process that
consolidates refuses a store written with another one until `sediment rebuild` has
derived everything again.

Layouts: 1, unrecorded (stores written before this marker existed); 2, every stated
value also keyed `subject|=word`, which retractions read; 3, a memory's id derived from
its bank and event id (`contracts.memory.derive_memory_id`), not from the event id
alone, so two banks using one event id no longer share (and overwrite) one point: the
rebuild moves each raw memory to its new id, and tombstones with it; 4, every statement
short enough to be read by frame also keyed `subject|~word` per content word and
`thing:words` per definite thing it is about (`openkeys.open_keys`), which updates
found by frame and value read: the rebuild derives them again from each memory's text;
5, those keys by role instead of by every word (`subject|~head:w`, `~said:w`, `~ended:w`),
so that a statement reads only the statements its frame or its ended values can meet;
6, heads by their stem ("living" / "lives"), and also keyed by the word after the subject
with the last content word (`~tail:v:w`, a frame whose value is not at its end) and by
the stem of a role's noun or verb (`~role:stem`, "trains with" / "trainer"), with
features format 3; 7, a memory of several passages (`readmodel.passages`) stored with
a vector per passage and each passage's span, stems and tokens, which recall cuts
snippets by: the rebuild embeds the passages of memories stored before; such a text is
read for no slot (`statements.py`), and a package at a version is no email address, so
the rebuild derives their slot keys again; 8, a standing instruction
(`readmodel.instructions`) stored with the span saying when it applies and the role
`text_role: instruction`, which recall searches the bank's instructions by: the rebuild
writes them for memories stored before; 9, more statements read by attribute and by
frame (a car said by "has a <make> <model>", a job as "<s> 's job title is _", a noun's
value said by what it "changed to", a holder named first closing a sentence or said to
hold no more, the noun of "<s> 's N" as its head even in capitals, a change declared by
a plural noun, a definite thing named before a verb's particle or "date"): slot keys
and frame keys derived again by the rebuild; 10, readings that change the frame keys: a
statement that only names a value as over ("Sam moved out last week, so it's just me
now") keyed by it, a thing's date less the one its sentence names as over ("moved from
May 3 to May 10" dates it May 10), "May" the month read as no modal, a closing "since
May" as no part of a value, "she's" as the pronoun, a verb said to be over with no
object ("I don't smoke anymore"), a noun's value said by what it rose or fell to ("my
rent went up to 950 dollars"), and "passed away" / "died" as endings: the rebuild
derives them again; 11, what a question presupposes ("Now that I live in Bergen, ...?")
read by frame and by attribute, closing asides ("by the way") no part of a frame,
"I'm" / "we're" the subject of an attribute, "rents from" a landlord, "lives alone",
"Maria manages me", "Ana told me she ...", "New email: V", "Mum" as "my mum", and the
kind of a value (`openkinds.py`) keyed `subject|~kind:k`, which a change said by its new
value alone ("switched to netball") meets: slot keys and frame keys derived again by the
rebuild; 12, roles said by their verb (the doctor one sees, the gym one works out at, the
way to work, the language one learns, the shift one works, who runs one's team, whom one
lives with) read as the role's noun, a verb that is not so ("nearly started", "decided
against going") and a job sought ("applied for a job at") read as no fact, "also" as an
addition, a value of a kind held by its verb, and one who left ("Keith retired") keyed
`~died:w` to meet what names them as a holder: slot keys and frame keys derived again by
the rebuild; 13, restatements merged by their reading (`readmodel.reading`), never by
closeness alone: observations an earlier layout built over different facts ("Dan works
at Initech" with "Dan's wife works at Initech") are taken apart by the rebuild, which
derives every observation again; 14, a subject written as an identifier ("user42",
"db01") or in lower case as the producer's entity ("bob") is read as a subject: the
rebuild derives the slot keys and features of memories stored before, so "user42 moved
to Dallas" supersedes "user42 lives in Miami" stored under 13; 15, a person named in full
(in the text, or by the event's entities) keyed by the full name (`fullnames.py`), so two
people of one first name are two subjects ("Pia Kesini moved to Seattle" no longer
supersedes "Pia Halsen lives in Lyon"): slot keys and features derived again; 16, a
happening on another day replaces nothing ("we paid the rent on April 1" no longer
supersedes "... on March 1"), and the reading is stored with the features (format 5):
the rebuild derives features and every supersession again; 17, quantities read in one
normal form ("half an hour" and "30 minutes" are one value, "a full day" is a day; format
6): the rebuild derives features, merges and supersessions again; 18, statements read
alike keyed by their reading (`readmodel.reading.reading_key`), so they merge however far
apart the embedder puts them ("Dinner is at 7 pm." / "Dinner is at seven in the
evening."): the rebuild derives slot keys and merges again; 19, a known thing's date or
status said anew decided by the statement reader (`readmodel.reading.things`, keyed
`~thing:T|date` and `~thing:T|status`), with the reader's clauses saying how their
subject is named, "the N of the T" read as the T's N, an opening adverbial or aside read
after the clause or dropped, and an unnamed "they"'s act on a thing read as its passive
(features format 7): the rebuild derives features, keys, merges and supersessions again.
"""

from readmodel.store import MemoryStore

LAYOUT = 19


class StaleLayoutError(RuntimeError):
    """The store's points were derived under another layout than this version's."""

    def __init__(self, where: str, found: int | None) -> None:
        recorded = f"layout {found}" if found is not None else "no recorded layout"
        super().__init__(
            f"the store at {where} has {recorded}; this version consolidates with layout "
            f"{LAYOUT} (worker/consolidation/layout.py: memory ids and derived fields differ), "
            "so retains, updates and retractions would miss memories stored before. Run "
            "`sediment rebuild --all` once (it moves memories to this version's ids, derives "
            "every bank again and records the layout), then start again."
        )


def adopt_layout(store: MemoryStore) -> None:
    """A store with no memories and no recorded layout takes this version's, so that
    whatever writes to it first (a worker, a rebuild, a program) leaves it marked."""
    if store.layout() is None and not store.banks():
        store.mark_layout(LAYOUT)


def check_layout(store: MemoryStore, where: str) -> None:
    """Pass for a store of this layout (an empty one takes it); raise
    `StaleLayoutError` otherwise."""
    adopt_layout(store)
    found = store.layout()
    if found != LAYOUT:
        raise StaleLayoutError(where, found)
