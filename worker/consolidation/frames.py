"""Frames: the phrasings that state an attribute of a subject ("X lives in <place>",
"X's manager is <person>", "X quit <value>"), each with how its value is read and whose
attribute it is. Matching is case-insensitive; `NAME` and `POSS` need capitals.

`mode`: `is` states a value, `ended` retracts one ("no longer vegetarian", "sold the
Civic"), `changed` declares a change whose value is not given ("switched GPs").
`tier`: `slot` attributes hold one value at a time, so a different newer value replaces
the older even with no change word; `generic` ones (habits, plans, routines) need a
change word in the newer statement; `multi` ones (pets one has, allergies) accumulate and
are only ever retracted.
`subject`: `local` (the words before the frame), `owner` (the `owner` group), `thing`
(the `thing` group), `pair` (both `a` and `b`, for partners), `primary` (the statement's
main person, for "Miso passed away").
"""

import re
from dataclasses import dataclass
from enum import StrEnum

from worker.consolidation import lexicon as lx
from worker.consolidation import readers as rd


class Mode(StrEnum):
    IS = "is"
    ENDED = "ended"
    CHANGED = "changed"


class Tier(StrEnum):
    SLOT = "slot"
    GENERIC = "generic"
    MULTI = "multi"


ANY = "*"
NAME = r"(?-i:[A-Z][\w’'-]*)"
POSS = r"(?P<owner>\b(?:my|our|his|her|their)|(?-i:[A-Z][\w-]*)(?:'s|’s))"
THING = r"(?P<thing>(?-i:[A-Z][\w-]*))"
DIET = "|".join(sorted(lx.DIETS, key=len, reverse=True))
MAKES = "|".join(sorted(lx.CAR_MAKES, key=len, reverse=True))
PETS = "|".join(sorted(lx.PET_KINDS, key=len, reverse=True))
BE = r"(?:is|am|are|'s|’s|'m|’m|'re)"
PROPER_RUN = r"(?:(?-i:[A-Z])[\w'’.-]*\s+(?:(?:of|the|and|de|&)\s+)?)*(?-i:[A-Z])[\w'’.-]*"
ADV = r"(?:(?:now|still|currently|also|happily|really|actually|definitely|officially)\s+)?"


@dataclass(frozen=True)
class Frame:
    attribute: str
    pattern: re.Pattern[str]
    read: rd.Reader
    mode: Mode = Mode.IS
    tier: Tier = Tier.SLOT
    subject: str = "local"


def _f(
    attribute: str,
    pattern: str,
    read: rd.Reader,
    mode: Mode = Mode.IS,
    tier: Tier = Tier.SLOT,
    subject: str = "local",
) -> Frame:
    return Frame(attribute, re.compile(pattern, re.I), read, mode, tier, subject)


IS, ENDED, CHANGED = Mode.IS, Mode.ENDED, Mode.CHANGED
GENERIC, MULTI = Tier.GENERIC, Tier.MULTI

RESIDENCE = [
    _f("residence", r"\b(?:live|lives|living|reside|resides)\s+in\s+", rd.proper),
    _f("residence", r"\b(?:has|have|'ve|’ve)\s+(?:been\s+)?lived\s+in\s+", rd.proper),
    _f("residence", r"\b(?:based|settled|resident)\s+in\s+", rd.proper),
    _f(
        "residence",
        r"\b(?:resident\s+of|renting\s+in|rents\s+in|(?:lives?|living)\s+out\s+of)\s+",
        rd.proper,
    ),
    _f(
        "residence",
        r"\bcalls?\s+(?=(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*)?\s+home\b)",
        rd.proper,
    ),
    _f("residence", r"\bmade\s+(?:my|his|her|their|our|a)\s+(?:new\s+)?home\s+in\s+", rd.proper),
    _f(
        "residence",
        r"\b(?:has|have|'ve|’ve)\s+been\s+in\s+(?=(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*)?"
        r"\s+since\s+(?:(?:last|early|late)\s+)?(?:(?-i:January|February|March|April|May|June|July|"
        r"August|September|October|November|December)|spring|summer|autumn|fall|winter|year|"
        r"(?:19|20)\d\d)\b)",
        rd.proper,
    ),
    _f(
        "residence",
        r"\b(?:rents?|has|have|owns?|bought)\s+(?:a|an|her|his|my|their)\s+(?:own\s+)?"
        r"(?:flat|house|apartment|place|home|condo|studio)\s+in\s+",
        rd.proper,
    ),
    _f(
        "residence",
        r"\b(?:moved|moves|relocated|relocates)\s+(?:back\s+|out\s+|away\s+)?"
        r"(?:from\s+(?-i:[A-Z])[\w .'-]*?\s+)?to\s+",
        rd.proper,
    ),
    _f(
        "residence",
        POSS
        + r"\s+(?:new\s+|current\s+)?(?:(?:home|place|flat|house)\s+is\s+"
        + ADV
        + r"in\s+|address\s+is\s+"
        + ADV
        + r"(?:in\s+)?)",
        rd.proper,
        subject="owner",
    ),
    _f(
        "residence",
        r"\bhome\s+for\s+(?P<owner>me|" + NAME + r")\s+is\s+" + ADV,
        rd.proper,
        subject="owner",
    ),
]
EMPLOYER = [
    _f(
        "employer",
        r"\b(?:works?|working)\s+(?:full[- ]time\s+|part[- ]time\s+)?(?:at|for)\s+",
        rd.organisation,
    ),
    _f(
        "employer",
        r"\b(?:works?|working)\s+as\s+(?:a|an)\s+[\w -]{2,40}?\s+(?:at|for)\s+",
        rd.organisation,
    ),
    _f("employer", r"\bemployed\s+by\s+", rd.organisation),
    _f(
        "employer",
        r"\b(?:started|joined|hired|came\s+in)\s+as\s+(?:a\s+|an\s+)?[\w -]{2,40}?\s+"
        r"(?:at|for|with)\s+(?=(?-i:[A-Z]))",
        rd.proper,
    ),
    # Not one sought or offered: "applied for a job at Globex", "was offered a role at Acme"
    # ("left Acme for a job at Globex" holds one).
    _f(
        "employer",
        r"(?<!applied for a )(?<!apply for a )(?<!applying for a )(?<!interview for a )"
        r"(?<!interviewing for a )(?<!interviewed for a )(?<!looking for a )(?<!offered a )"
        r"(?<!about a )\b(?:job|position|post|role)\s+(?:at|with)\s+",
        rd.organisation,
    ),
    _f("employer", r"\b(?:on\s+the\s+payroll|day\s+job)\s+(?:at|of)\s+", rd.organisation),
    _f("employer", r"\bemployer\s+is\s+" + ADV, rd.organisation),
    _f("employer", r"\bjoined\s+(?=(?-i:[A-Z]))", rd.proper),
    _f("employer", r"\bstarted\s+(?:working\s+)?at\s+(?=(?-i:[A-Z]))", rd.proper),
    _f("employer", r"\b(?:moved|switched|gone|went)\s+over\s+to\s+", rd.proper),
    _f("employer", r"\baccepted\s+an?\s+(?:job\s+)?offer\s+from\s+", rd.proper),
    _f("employer", r"\bteach(?:es)?\s+[\w -]{1,30}?\s+at\s+", rd.organisation),
    _f("employer", r"\b(?:is|am|was)\s+(?:a|an)\s+[\w -]{2,40}?\s+at\s+(?=(?-i:[A-Z]))", rd.proper),
]
TITLE = [
    _f("job_title", r"\b(?:works?|working)\s+as\s+", rd.title),
    _f("job_title", r"\b" + BE + r"\s+" + ADV + r"(?:a|an)\s+", rd.title),
    _f("job_title", r"\b(?:has|have)\s+been\s+(?:a|an)\s+", rd.title),
    _f("job_title", r"\bemployed\s+as\s+", rd.title),
    _f("job_title", r"\b(?:job\s+)?title\s+is\s+" + ADV, rd.title),
    _f("job_title", r"\b(?:role|position)\s+is\s+" + ADV, rd.title),
    _f("job_title", r"\bpromoted\s+(?:from\s+[\w -]+?\s+)?to\s+", rd.title),
    _f("job_title", r"\bbecame\s+", rd.title),
    _f("job_title", r"\bstepped\s+up\s+(?:to|as)\s+(?:be\s+)?", rd.title),
    _f("job_title", r"\b(?:taken|took)\s+on\s+the\s+role\s+of\s+", rd.title),
    _f("job_title", r"\bstarted\s+as\s+", rd.title),
    _f("job_title", r"\bjoined\s+[\w &.'’-]+?\s+as\s+", rd.title),
]
PARTNER = [
    _f(
        "partner",
        r"\b" + BE + r"\s+" + ADV + r"(?:dating|seeing|engaged\s+to|married\s+to|"
        r"in\s+a\s+relationship\s+with|going\s+out\s+with)\s+",
        rd.person,
    ),
    _f("partner", r"\b(?:is\s+)?(?:dating|engaged\s+to)\s+", rd.person),
    _f(
        "partner",
        POSS + r"\s+(?:new\s+)?(?:partner|wife|husband|girlfriend|boyfriend|spouse|fianc[ée]e?)"
        r"(?:\s+is|,)?\s+" + ADV,
        rd.person,
        subject="owner",
    ),
    _f("partner", r"\bmarried\s+(?=(?-i:[A-Z]))", rd.person),
    _f("partner", r"\bgot\s+(?:together|engaged|married)\s+(?:with|to)\s+", rd.person),
    _f("partner", r"\bhas\s+a\s+new\s+partner,?\s+", rd.person),
    _f(
        "partner",
        r"(?P<a>" + NAME + r")\s+and\s+(?P<b>" + NAME + r")\s+(?:have\s+been\s+together|"
        r"are\s+(?:still\s+|now\s+)?(?:together|a\s+couple|engaged|married)|got\s+(?:engaged|married))",
        rd.phrase,
        subject="pair",
    ),
    _f(
        "partner",
        r"(?P<a>"
        + NAME
        + r")\s+and\s+(?P<b>"
        + NAME
        + r")\s+(?:broke\s+up|split|separated|divorced)",
        rd.phrase,
        ENDED,
        subject="pair",
    ),
    _f(
        "partner",
        r"\b(?:broke\s+up\s+with|split\s+(?:up\s+)?(?:from|with)|separated\s+from|"
        r"divorced)\s+",
        rd.person,
        ENDED,
    ),
]
PET = [
    _f(
        "pet",
        POSS + r"\s+(?:only\s+)?pet(?:\s+these\s+days|\s+now)?\s+(?:is|:)\s+" + ADV,
        rd.phrase,
        subject="owner",
    ),
    _f("pet", POSS + r"\s+only\s+pet\s+(?:now\s+)?is\s+", rd.phrase, subject="owner"),
    _f("pet", r"\b(?:has|have)\s+(?:only\s+)?one\s+pet,?\s+", rd.phrase),
    _f(
        "pet",
        r"\b(?:has|have|got|adopted|owns?|keeps?|share[sd]?\s+\w+\s+\w+\s+with)\s+"
        r"(?=(?:a|an|another|two|a\s+second)\s+(?:[\w-]+\s+){0,2}(?:" + PETS + r")\b)",
        rd.phrase,
        tier=MULTI,
    ),
    _f(
        "pet",
        r"(?P<val>" + NAME + r")\s+is\s+(?:still\s+|now\s+)?" + POSS + r"\s+only\s+pet",
        rd.proper,
        subject="owner",
    ),
    _f(
        "pet",
        r"\b(?:has|have|adores?|loves?)\s+(?=(?-i:[A-Z])\w+,\s+(?:my|his|her|their|our)\s+"
        r"(?:[\w-]+\s+)?(?:" + PETS + r")\b)",
        rd.proper,
        tier=MULTI,
    ),
    _f(
        "pet",
        r"\b(?:rehomed|re-homed|gave\s+away|after\s+losing|lost)\s+(?=(?-i:[A-Z]))",
        rd.proper,
        ENDED,
    ),
]
CAR = [
    _f("car", r"\b(?:drives?|driving)\s+(?=(?:a|an|the|his|her|my|our)\s)", rd.vehicle),
    _f(
        "car",
        POSS + r"\s+(?:new\s+|only\s+|current\s+)?car\s+is\s+" + ADV,
        rd.vehicle,
        subject="owner",
    ),
    _f(
        "car",
        r"\b(?:owns?|gets?\s+around\s+in|bought|got|switched\s+to|upgraded\s+to)\s+"
        r"(?=(?:a|an)\s+(?:[\w-]+\s+){0,2}(?-i:"
        + "|".join(m.capitalize() for m in lx.CAR_MAKES)
        + r"|VW|BMW))",
        rd.vehicle,
    ),
    # "has a <make> <model> (now)": a make and its model end the clause, so that "has a
    # Mazda meeting" is no car.
    _f(
        "car",
        r"\b(?:has|have)\s+(?=(?:a|an)\s+(?-i:"
        + "|".join(m.capitalize() for m in lx.CAR_MAKES)
        + r"|VW|BMW)(?:\s+(?-i:[A-Z0-9])[\w-]*)*(?:\s+now)?(?:\s*[.,;!]|\s*$|\s+(?:and|but)\b))",
        rd.vehicle,
    ),
    _f("car", r"\b(?:traded\s+in|replaced)\s+the\s+[\w -]+?\s+(?:for|with)\s+", rd.vehicle),
]
SCHOOL = [
    _f("school", r"\b(?:goes|go|going|went)\s+to\s+", rd.school),
    _f("school", r"\battends?\s+", rd.school),
    _f("school", r"\b(?:pupil|student|in\s+year\s+\w+|in\s+\w+\s+grade)\s+at\s+", rd.school),
    _f("school", r"\b(?:studies|study|studying)\s+at\s+", rd.school),
    _f("school", POSS + r"\s+school\s+is\s+" + ADV, rd.school, subject="owner"),
    _f("school", r"\b" + BE + r"\s+" + ADV + r"at\s+", rd.school),
    _f(
        "school",
        r"\b(?:switched|transferred|moved|changed)\s+(?:schools\s+)?(?:from\s+.+?\s+)?"
        r"to\s+",
        rd.school,
    ),
    _f("school", r"\bstarted\s+at\s+", rd.school),
]
DIETS = [
    _f(
        "diet",
        r"\b(?:is|am|are|'s|’s|'m|’m|been|become|became|went|gone|going|turned)\s+"
        + ADV
        + r"(?:fully\s+|strictly\s+|completely\s+)?(?=(?:"
        + DIET
        + r")\b)",
        rd.diet,
    ),
    _f(
        "diet",
        r"\b(?:follows?|keeps?\s+to|eats?|on|switched\s+to|stuck\s+with\s+being)\s+"
        r"(?:a\s+)?(?:strictly\s+|mostly\s+)?(?=(?:" + DIET + r")\b)",
        rd.diet,
    ),
    _f("diet", r"\beats?\s+(?=meat\b)", rd.diet),
    _f(
        "diet",
        r"(?<!was\s)(?<!were\s)\b(?:on|follows?|following|doing|started|keeps?\s+to)\s+(?:a|the)\s+"
        r"(?:strict\s+|new\s+)?(?P<val>(?!strict\b|new\b|crash\b|proper\b|healthy\b)"
        r"[\w-]+(?:\s+[\w-]+)?)\s+diet\b",
        rd.phrase,
    ),
    _f(
        "diet",
        r"\b(?:no\s+longer|not|stopped\s+being|gave\s+up\s+being|quit\s+being)\s+"
        r"(?=(?:" + DIET + r")\b)",
        rd.diet,
        ENDED,
    ),
]
LANDLORD = [
    _f(
        "landlord",
        r"\b(?:rents?|renting|leases?|leasing|sublets?|subletting)\s+(?:(?:a|the|my|his|her|"
        r"their|our)\s+(?:room|flat|apartment|house|place|studio|home|unit|condo)\s+)?from\s+",
        rd.person,
    ),
]
"""Who the subject rents its home from: "Omar rents from Hugo" says "Omar's landlord is
Hugo" (not "rents a car from ...")."""
ONE_OFF = (
    r"(?![\w .'’-]{0,40}?\b(?:tomorrow|today|tonight|yesterday|next|this|last|on\s+"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)"
)
"""Not said of one occasion: "sees Dr. Lee for checkups" is who one's doctor is; "I see
Dr. Lee tomorrow" is an appointment."""
DR = r"(?:Dr\.?|Doctor)\s+(?-i:[A-Z])"
TEETH = (
    r"[\w.'’-]+(?:\s+(?-i:[A-Z])[\w.'’-]*)?\s+for\s+(?:(?:my|his|her|their|our)\s+)?"
    r"(?:teeth|dental|fillings|cleanings|check-?ups?\s+on\s+(?:my|his|her|their|our)\s+teeth)\b"
)
CARE = (
    r"\b(?:sees|see|seeing|goes\s+to|go\s+to|visits|visit|(?:is|am|'m|’m|are)\s+seen\s+by|"
    r"(?:is|am|'m|’m|are)\s+(?:registered\s+with|a\s+patient\s+(?:of|at)))\s+"
)
CARE_ROLES = [
    _f("dentist", CARE + r"(?=" + DR + TEETH + r")" + ONE_OFF, rd.person),
    _f("doctor", CARE + r"(?=" + DR + r"(?!" + TEETH + r"))" + ONE_OFF, rd.person),
]
"""Whom the subject sees for their health, said by the verb: "Lucia goes to Dr. Okafor for
her teeth" says "Lucia's dentist is Dr. Okafor"; "I see Dr. Lindqvist for checkups" says
"my doctor is Dr. Lindqvist"."""
TRAINS = r"(?:works?\s+out|working\s+out|lifts?|lifting|exercises?|exercising)"
GYM_PLACE = (
    r"(?=(?-i:[A-Z])|(?:the|a)\s+(?:[\w'’-]+\s+){0,2}(?:gym|leisure\s+cent(?:re|er)|"
    r"fitness\s+(?:cent(?:re|er)|club|studio)|sports\s+(?:cent(?:re|er)|club)|health\s+club|"
    r"box|studio|pool)\b)"
)
GYM = [
    _f("gym", r"\b" + TRAINS + r"\s+at\s+" + GYM_PLACE + ONE_OFF, rd.organisation),
    _f(
        "gym",
        r"\b(?:trains?|training)\s+at\s+" + GYM_PLACE + ONE_OFF,
        rd.organisation,
        tier=GENERIC,
    ),
    _f("gym", r"\bgym\s+membership\s+(?:at|with)\s+", rd.organisation),
    _f(
        "gym",
        r"\b(?:goes|go|going|member)\s+(?:to|at|of)\s+(?=(?:the\s+)?(?-i:[A-Z])[\w'’]*(?:\s+"
        r"(?-i:[A-Z])[\w'’]*){0,2}\s+(?-i:Gym|Fitness|Leisure\s+Centre|Health\s+Club)\b)",
        rd.organisation,
    ),
]
"""Where the subject works out: "Lucia works out at Ironworks Gym" says "Lucia's gym is
Ironworks Gym". "Trains at" is said of more than gyms (a nurse trains at a hospital), so a
change word must say it replaced one."""
TRANSIT = r"bus|train|tube|tram|metro|subway|ferry|underground|coach|shuttle|boat"
TO_WORK = r"(?:(?:in\s+)?to|into)\s+(?:work|the\s+office|school|uni|university|college|campus)\b"
COMMUTE = [
    _f(
        "commute",
        r"\b(?:takes?|taking|gets?|getting|catch(?:es)?|catching|rides?|riding)\s+(?:the\s+|a\s+)?"
        r"(?P<val>" + TRANSIT + r")\s+" + TO_WORK,
        rd.commute,
        tier=GENERIC,
    ),
    _f(
        "commute",
        r"\b(?P<val>cycles?|cycling|bikes?|biking|walks?|walking|drives?|driving|runs?|"
        r"scoots?|carpools?|carpooling)\s+" + TO_WORK,
        rd.commute,
        tier=GENERIC,
    ),
    _f(
        "commute",
        r"\b(?:commutes?|commuting|gets?\s+to\s+work|goes\s+to\s+work|go\s+to\s+work|"
        r"travels?\s+to\s+work|comes?\s+in|come\s+into\s+work)\s+(?:in\s+)?"
        r"(?:by|on\s+(?:the|a|my|his|her|their))\s+(?P<val>[\w-]+)",
        rd.commute,
        tier=GENERIC,
    ),
    _f(
        "commute",
        POSS + r"\s+commute\s+is\s+" + ADV + r"(?:by\s+|on\s+(?:the\s+|a\s+)?)?(?P<val>[\w-]+)",
        rd.commute,
        tier=GENERIC,
        subject="owner",
    ),
    _f(
        "commute",
        r"\b(?P<val>cycles?|bikes?|walks?|drives?)\s+in\b(?=\s*(?:$|[,.;!]|\s+(?:now|these\s+days|"
        r"every|each|most|instead|nowadays)\b))",
        rd.commute,
        tier=GENERIC,
    ),
]
"""How the subject gets to work or school, one way at a time; a habit, so only a change
word replaces it ("drives to work on Fridays" is one day's way)."""
LANGUAGES = "|".join(sorted(lx.LANGUAGES, key=len, reverse=True))
LANGUAGE = [
    _f(
        "language",
        r"\b(?:learning|learns?|studying|studies|study|practis(?:es?|ing)|practic(?:es?|ing)|"
        r"taking|takes?)\s+(?P<val>" + LANGUAGES + r")\b(?!\s+(?:food|cuisine|wine|films?|"
        r"history|literature))",
        rd.phrase,
        tier=GENERIC,
    ),
    _f(
        "language",
        r"\b(?:does|do|doing|goes\s+to|go\s+to|going\s+to|attends?|attending|signed\s+up\s+for|"
        r"enrolled\s+in|brushing\s+up\s+on)\s+(?:my\s+|his\s+|her\s+|their\s+)?"
        r"(?P<val>" + LANGUAGES + r")(?=\s+(?:classes|lessons|courses?|class|tutoring)\b|"
        r"\s*(?:$|[,.;!]|\s+(?:now|these\s+days|instead)\b))",
        rd.phrase,
        tier=GENERIC,
    ),
]
"""The language the subject is learning: one at a time once a change word says so ("I
study Japanese now" after "I'm learning Portuguese"); "also learning" adds one."""
MANAGER = [
    _f(
        "manager",
        POSS + r"\s+(?:new\s+|line\s+|direct\s+)?(?:manager|boss|supervisor)"
        r"\s+(?:is|:)\s+" + ADV,
        rd.person,
        subject="owner",
    ),
    _f("manager", r"\breports?\s+(?:directly\s+)?to\s+", rd.person),
    _f("manager", r"\b(?:works?|been\s+moved)\s+under\s+", rd.person),
    _f("manager", r"\bnew\s+(?:boss|manager),\s+", rd.person),
    _f(
        "manager",
        r"\b(?P<val>" + NAME + r"(?:\s+" + NAME + r")?)\s+(?:became|is\s+now|took\s+over"
        r"\s+as)\s+" + POSS + r"\s+(?:new\s+)?(?:manager|boss)",
        rd.person,
        subject="owner",
    ),
    _f(
        "manager",
        r"\b(?P<val>" + NAME + r"(?:\s+" + NAME + r")?)\s+" + ADV + r"(?:runs|leads|manages|heads"
        r"(?:\s+up)?|oversees|supervises|(?:is|'s|’s)\s+" + ADV + r"in\s+charge\s+of|"
        r"(?:has|'s|’s)\s+taken\s+over|took\s+over)\s+" + POSS + r"\s+(?:team|department|"
        r"group|unit|division|work)\b",
        rd.person,
        subject="owner",
    ),
    _f("manager", r"\banswers?\s+(?:directly\s+)?to\s+(?=(?-i:[A-Z]))", rd.person),
    _f(
        "manager",
        r"\b(?:on|in|joined|moved\s+(?:over\s+)?to|transferred\s+to|switched\s+to)\s+"
        r"(?P<val>" + NAME + r")(?:'s|’s)\s+team\b",
        rd.person,
    ),
    _f("manager", r"\b" + THING + r"\s+is\s+" + ADV + r"led\s+by\s+", rd.person, subject="thing"),
    _f("manager", r"\b(?:the\s+)?" + THING + r"\s+lead\s+is\s+", rd.person, subject="thing"),
    _f(
        "manager",
        r"\b(?P<val>"
        + NAME
        + r"(?:\s+"
        + NAME
        + r")?)\s+"
        + ADV
        + r"(?:runs|leads|manages)\s+(?:the\s+)?"
        + THING,
        rd.person,
        subject="thing",
    ),
    _f(
        "manager",
        r"\b(?P<val>" + NAME + r"(?:\s+" + NAME + r")?)\s+(?:took\s+over|is\s+the\s+new"
        r"\s+lead\s+on)\s+(?:the\s+)?" + THING,
        rd.person,
        subject="thing",
    ),
    _f(
        "manager",
        r"\bhanded\s+(?:the\s+)?" + THING + r"\s+(?:project\s+)?over\s+to\s+",
        rd.person,
        subject="thing",
    ),
]
PREFERENCE = [
    _f(
        "preference:",
        POSS + r"\s+(?:all-time\s+)?(?:favou?rite|preferred|go-to)\s+"
        r"(?P<attr>[\w-]+(?:\s+drink)?)\s+(?:these\s+days\s+|now\s+)?(?:is|are|:)\s+" + ADV,
        rd.phrase,
        subject="owner",
    ),
    _f(
        "preference:",
        POSS + r"\s+(?P<attr>[\w-]+)\s+of\s+choice\s+(?:these\s+days\s+)?is\s+" + ADV,
        rd.phrase,
        subject="owner",
    ),
    _f(
        "preference:",
        POSS + r"\s+(?P<attr>morning\s+drink)\s+is\s+" + ADV,
        rd.phrase,
        subject="owner",
    ),
    _f(
        "preference:morning drink",
        r"\b(?:drinks?|has|have)\s+(?=[\w -]{2,30}?\s+(?:every|each|"
        r"in\s+the|at|with)\s+(?:morning|breakfast))",
        rd.phrase,
    ),
    _f("preference:morning drink", r"\bstarts?\s+the\s+day\s+with\s+", rd.phrase),
    _f("preference:music", r"\b(?:listens?|listening)\s+(?:mostly\s+)?to\s+", rd.phrase),
    _f(
        "preference:music",
        r"\b(?:is|am|'m|’m)\s+(?:now\s+|really\s+|still\s+)?into\s+"
        r"(?=(?:" + "|".join(lx.GENRES) + r")\b)",
        rd.phrase,
    ),
    _f("preference:coding tool", r"\b(?:writes?\s+code|codes?|programs?)\s+in\s+", rd.proper),
    _f("preference:coding tool", r"\buses?\s+(?=(?-i:[A-Z])[\w ]{1,20}\s+for\s+coding)", rd.proper),
    _f(
        "preference:cuisine", r"\b(?:likes?|loves?|prefers?)\s+(?=(?-i:[A-Z])\w+\s+food)", rd.proper
    ),
    _f(
        "preference:",
        r"\b(?P<val>[\w-]+)\s+is\s+(?:still\s+)?(?:the|my|her|his|their)\s+"
        r"(?P<attr>[\w-]+)\s+(?:she|he|i|they|we)\s+(?:likes?|loves?|prefers?)\s+(?:the\s+)?"
        r"(?:most|best)",
        rd.phrase,
        subject="primary",
    ),
    _f(
        "preference:",
        r"(?P<val>" + PROPER_RUN + r")\s+as\s+" + POSS + r"\s+(?:new\s+)?"
        r"favou?rite\s+(?P<attr>[\w-]+)",
        rd.proper,
        subject="owner",
    ),
    _f(
        "preference:",
        r"(?P<val>"
        + PROPER_RUN
        + r")\s+is\s+(?:still\s+|now\s+)?"
        + POSS
        + r"\s+favou?rite\s+(?P<attr>[\w-]+)",
        rd.proper,
        subject="owner",
    ),
]
WITH = [
    _f(
        "with:",
        r"\b" + BE + r"\s+" + ADV + r"(?:still\s+|now\s+)?with\s+(?=(?-i:[A-Z]))",
        rd.proper,
    ),
    _f(
        "employer",
        r"\b(?:has|have|'ve|’ve)\s+been\s+(?:at|with)\s+(?=(?-i:[A-Z])[\w .&'-]+?\s+"
        r"for\s+(?:a\s+while|years|months|\d+|a\s+year|ages|some\s+time))",
        rd.proper,
    ),
]
TEAM = [
    _f(
        "team",
        r"\b(?:joined|moved\s+to|transferred\s+to|switched\s+to|on|in)\s+the\s+"
        r"(?=[\w -]{2,30}?\s+team\b)",
        rd.phrase,
    ),
]
GENERIC_FRAMES = [
    _f("learning", r"\b" + BE + r"\s+" + ADV + r"(?:learning|studying)\s+", rd.phrase, tier=MULTI),
    _f("plan", r"\b" + BE + r"\s+(?:planning|going|set|hoping)\s+to\s+", rd.clause, tier=GENERIC),
    _f("plan", r"\bplann?ed\s+to\s+", rd.clause, tier=GENERIC),
    _f(
        "plan",
        r"\bwill\s+(?=(?:attend|go|run|spend|visit|join|take|be\s+at)\b)",
        rd.clause,
        tier=GENERIC,
    ),
    _f("plan", r"\b" + BE + r"\s+going\s+to\s+(?=(?-i:[A-Z]))", rd.clause, tier=GENERIC),
    _f(
        "shift",
        r"\b(?:works?|working|on|switched\s+to|moved\s+to|doing|does)\s+(?:the\s+)?(?=(?:day|"
        r"night|early|late|evening|morning|weekend|graveyard|back)\s+shifts?\b)",
        rd.shift,
        tier=GENERIC,
    ),
    _f(
        "shift",
        r"\b(?:works?|working|does|doing|on|switched\s+to|moved\s+to|gone\s+(?:back\s+)?to)\s+"
        r"(?=(?:nights|days|earlies|lates|evenings|weekends)\b(?!\s+(?:ago|off|a\s+week)))",
        rd.shift,
        tier=GENERIC,
    ),
    _f("subscriptions", r"\b(?:pays?|paying)\s+for\s+", rd.clause, tier=MULTI),
    _f("allergy", r"\ballergic\s+to\s+", rd.phrase, tier=MULTI),
]
TASTE = [
    _f(
        "taste:",
        r"\b(?:loves?|likes?|enjoys?|adores?|hates?|dislikes?|detests?|can't\s+stand|"
        r"cannot\s+stand|(?:has|have)\s+come\s+around\s+on|came\s+around\s+on)\s+",
        rd.phrase,
    ),
]
ENDINGS = [
    _f(ANY, r"\bno\s+longer\s+", rd.ended, ENDED),
    _f(
        ANY,
        r"\b(?:stopped|quit|gave\s+up(?:\s+on)?|went\s+off|cancell?ed|canceled|"
        r"ditched|sold|got\s+rid\s+of|moved\s+on\s+from|resigned\s+from|retired\s+from)\s+",
        rd.ended,
        ENDED,
    ),
    _f(ANY, r"\b(?-i:left)\s+(?=(?-i:[A-Z]))", rd.proper, ENDED),
    _f(ANY, r"\b(?:switched|moved|changed|went|got\s+promoted)\s+from\s+", rd.phrase, ENDED),
    _f(ANY, r"\binstead\s+of\s+", rd.phrase, ENDED),
    _f(ANY, r"\b(?:traded\s+in|replaced)\s+(?:the\s+)?", rd.phrase, ENDED),
    _f(ANY, r"\bused\s+to\s+", rd.ended, ENDED),
    _f(ANY, r",\s+not\s+", rd.phrase, ENDED, subject="primary"),
    _f(
        ANY,
        r"\b(?:doesn't|don't|does\s+not|do\s+not|can't|cannot|won't|isn't|aren't|hardly|"
        r"barely|never)\s+(?=[\w ,'-]{2,60}?\s+(?:any\s?more|these\s+days)\b)",
        rd.ended,
        ENDED,
    ),
    _f(
        ANY,
        r"(?P<val>" + NAME + r")\s+(?:passed\s+away|died|ran\s+away|went\s+to\s+live\s+with)",
        rd.proper,
        ENDED,
        subject="primary",
    ),
]
DECLARED = re.compile(
    r"\b(?:switched|changed|swapped)\s+(?P<attr>jobs|schools|teams|gps|doctors|dentists|banks|"
    r"gyms|numbers|phones|cars|careers|roles|flats|houses|apartments|homes|departments|"
    r"offices|providers|hairdressers|supermarkets|managers|partners|diets)\b",
    re.I,
)
DECLARED_ATTRIBUTES = {
    "jobs": "employer",
    "schools": "school",
    "teams": "team",
    "gps": "doctor",
    "doctors": "doctor",
    "numbers": "phone",
    "phones": "phone",
    "cars": "car",
    "roles": "job_title",
    "careers": "job_title",
    "flats": "residence",
    "houses": "residence",
    "apartments": "residence",
    "homes": "residence",
    "managers": "manager",
    "partners": "partner",
    "diets": "diet",
}
FRAMES = [
    *RESIDENCE,
    *EMPLOYER,
    *TITLE,
    *PARTNER,
    *PET,
    *CAR,
    *SCHOOL,
    *DIETS,
    *MANAGER,
    *LANDLORD,
    *CARE_ROLES,
    *GYM,
    *COMMUTE,
    *LANGUAGE,
    *PREFERENCE,
    *WITH,
    *TEAM,
    *GENERIC_FRAMES,
    *TASTE,
    *ENDINGS,
]
