"""Who and what the independent update corpus talks about: attributes, their values, people.

Written apart from the extractor (worker/consolidation) and from the supersession templates:
an attribute here is a way of stating a fact about someone with one current value, in the
words people use for it, so that the corpus measures phrasings the rules never saw.

An attribute's `state` templates are neutral present-tense statements of a value; the
phrasing families in bench/corpus_families.py say how a change is stated. Placeholders:
`{S}` the subject ("I", "Maya"), `{s}` its pronoun, `{my}` its possessive ("my",
"Maya's"), `{poss}` the pronoun possessive, `{me}` the object pronoun, `{v}` the value,
`{x|y}` the first- or third-person form of a verb.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Attribute:
    """One single-valued fact about a subject, with the words that state it."""

    name: str
    kind: str
    values: tuple[str, ...]
    state: tuple[str, ...]
    verb: tuple[str, str, str, str] = ("", "", "", "")
    prep: str = ""
    change: str = "switched"
    noun: str = ""
    things: tuple[str, ...] = field(default=())


CITIES = (
    "Austin", "Denver", "Lisbon", "Portland", "Leeds", "Montreal", "Tucson", "Glasgow",
    "Raleigh", "Wellington", "Lyon", "Minneapolis", "Halifax", "Porto", "Boise", "Utrecht",
)  # fmt: skip
COMPANIES = (
    "Northwind", "Brightline Health", "Oakridge Bank", "Tandem Labs", "Calloway & Hart",
    "the city library", "Pinecrest Hospital", "Bluefin Logistics", "Marlow Studios",
    "Quarry Analytics", "Sunbeam Foods", "Harbor Freightworks", "the county council",
)  # fmt: skip
DRINKS = (
    "black coffee", "oat milk lattes", "green tea", "cold brew", "chai", "flat whites",
    "decaf americanos", "matcha", "rooibos", "cortados", "mint tea", "iced mochas",
)  # fmt: skip
SPORTS = (
    "tennis", "pickleball", "squash", "badminton", "five-a-side football", "volleyball",
    "ultimate frisbee", "table tennis", "water polo", "netball",
)  # fmt: skip
COMMUTES = ("the bike", "the train", "the bus", "the car", "an e-scooter", "the ferry", "the tram")
LANGUAGES = (
    "Spanish", "Japanese", "Portuguese", "German", "Korean", "Italian", "Mandarin", "Dutch",
    "Swahili", "Greek",
)  # fmt: skip
GYMS = (
    "Ironworks Gym", "the YMCA", "Crunch on 5th", "Anytime Fitness", "Peak Climbing",
    "the leisure centre", "Equinox downtown", "Gold's on Main",
)  # fmt: skip
JOBS = (
    "a nurse", "a teacher", "an accountant", "a software engineer", "a paralegal",
    "a pharmacist", "a barista", "a project manager", "a graphic designer", "an electrician",
    "a data analyst", "a social worker", "a physiotherapist", "a sous chef",
)  # fmt: skip
DIETS = ("vegetarian", "vegan", "pescatarian", "on keto", "on a low-FODMAP diet", "paleo")
SHIFTS = ("on the night shift", "on the day shift", "on the early shift", "on weekends only")
DOCTORS = (
    "Dr. Patel", "Dr. Okafor", "Dr. Lindqvist", "Dr. Romero", "Dr. Nakamura", "Dr. Brennan",
    "Dr. Haddad", "Dr. Moreau", "Dr. Kowalski", "Dr. Achebe",
)  # fmt: skip
HOLDERS = (
    "Priya", "Marcus", "Elena", "Tomasz", "Grace", "Dev", "Ines", "Hugo", "Wanjiru", "Callum",
    "Beatriz", "Oskar", "Leila", "Rafael", "Siobhan", "Yusuf",
)  # fmt: skip
CARS = (
    "a Honda Civic", "a Subaru Outback", "a Tesla Model 3", "a Ford Ranger", "a VW Golf",
    "a Mazda CX-5", "a Toyota Prius", "a Kia Niro", "a Volvo XC40",
)  # fmt: skip
PHONES = (
    "an iPhone 13", "a Pixel 7", "a Galaxy S22", "a OnePlus 11", "a Fairphone 4",
    "an iPhone SE", "a Moto G",
)  # fmt: skip
DATES = (
    "March 3", "March 21", "April 9", "April 30", "May 14", "June 2", "June 19", "July 8",
    "August 15", "September 4", "September 26", "October 10", "November 6", "December 1",
)  # fmt: skip
STATUSES = (
    "on track", "delayed", "on hold", "cancelled", "finished", "behind schedule", "at risk",
    "approved",
)  # fmt: skip
DATED_THINGS = (
    "quarterly report", "kitchen renovation", "product launch", "thesis defense",
    "team offsite", "book club meeting", "grant deadline", "vendor audit", "recital",
    "move-in date", "tax filing", "board review",
)  # fmt: skip
STATUS_THINGS = (
    "website redesign", "Hadley merger", "warehouse migration", "grant application",
    "bathroom remodel", "Falcon project", "CRM rollout", "fundraising drive",
    "community garden plan", "billing rewrite", "podcast pilot", "office move",
)  # fmt: skip

ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute("home", "verb", CITIES,
              ("{S} {live|lives} in {v}.", "{My} home is in {v}."),
              ("live", "lives", "lived", "living"), "in ", "moved", "city"),
    Attribute("employer", "verb", COMPANIES,
              ("{S} {work|works} at {v}.", "{S} {am|is} employed by {v}."),
              ("work", "works", "worked", "working"), "at ", "moved", "job"),
    Attribute("drink", "verb", DRINKS,
              ("{S} {drink|drinks} {v} in the morning.", "{My} usual drink is {v}."),
              ("drink", "drinks", "drank", "drinking"), "", "switched", "coffee"),
    Attribute("sport", "verb", SPORTS,
              ("{S} {play|plays} {v} on weekends.", "{My} sport is {v}."),
              ("play", "plays", "played", "playing"), "", "switched", "sport"),
    Attribute("commute", "verb", COMMUTES,
              ("{S} {take|takes} {v} to work.", "{My} commute is on {v}."),
              ("take", "takes", "took", "taking"), "", "switched", "commute"),
    Attribute("language", "verb", LANGUAGES,
              ("{S} {am|is} learning {v}.", "{My} language class is {v}."),
              ("study", "studies", "studied", "studying"), "", "switched", "language class"),
    Attribute("gym", "verb", GYMS,
              ("{S} {work|works} out at {v}.", "{My} gym is {v}."),
              ("train", "trains", "trained", "training"), "at ", "switched", "gym"),
    Attribute("job", "copula", JOBS,
              ("{S} {am|is} {v}.", "{S} {work|works} as {v}."), noun="job"),
    Attribute("diet", "copula", DIETS,
              ("{S} {am|is} {v}.", "{S} {eat|eats} {v} these days."), noun="diet"),
    Attribute("shift", "copula", SHIFTS,
              ("{S} {am|is} {v}.", "{My} rota has {me} {v}."), noun="shift"),
    Attribute("doctor", "role", DOCTORS,
              ("{My} doctor is {v}.", "{S} {see|sees} {v} for checkups."), noun="doctor"),
    Attribute("dentist", "role", DOCTORS,
              ("{My} dentist is {v}.", "{S} {go|goes} to {v} for {poss} teeth."),
              noun="dentist"),
    Attribute("manager", "role", HOLDERS,
              ("{My} manager is {v}.", "{S} {report|reports} to {v}."), noun="manager"),
    Attribute("landlord", "role", HOLDERS,
              ("{My} landlord is {v}.", "{S} {rent|rents} from {v}."), noun="landlord"),
    Attribute("trainer", "role", HOLDERS,
              ("{My} personal trainer is {v}.", "{S} {train|trains} with {v}."),
              noun="personal trainer"),
    Attribute("partner", "role", HOLDERS,
              ("{My} partner is {v}.", "{S} {am|is} with {v}."), noun="partner"),
    Attribute("housemate", "role", HOLDERS,
              ("{S} {live|lives} with {v}.", "{S} {share|shares} a flat with {v}."),
              noun="housemate"),
    Attribute("car", "have", CARS,
              ("{S} {drive|drives} {v}.", "{My} car is {v}."), noun="car"),
    Attribute("phone", "have", PHONES,
              ("{S} {use|uses} {v}.", "{My} phone is {v}."), noun="phone"),
    Attribute("due", "date", DATES,
              ("The {t} is on {v}.", "The {t} is scheduled for {v}."), things=DATED_THINGS),
    Attribute("status", "status", STATUSES,
              ("The {t} is {v}.", "Status of the {t}: {v}."), things=STATUS_THINGS),
)  # fmt: skip

BY_NAME = {a.name: a for a in ATTRIBUTES}


@dataclass(frozen=True)
class Person:
    name: str
    pronoun: str
    obj: str
    poss: str
    relation: str


PEOPLE = (
    Person("Maya", "she", "her", "her", "sister"),
    Person("Theo", "he", "him", "his", "brother"),
    Person("Anika", "she", "her", "her", "coworker"),
    Person("Jonah", "he", "him", "his", "neighbour"),
    Person("Rosa", "she", "her", "her", "friend"),
    Person("Felix", "he", "him", "his", "cousin"),
    Person("Hana", "she", "her", "her", "aunt"),
    Person("Omar", "he", "him", "his", "flatmate"),
    Person("Lucia", "she", "her", "her", "friend"),
    Person("Bram", "he", "him", "his", "colleague"),
    Person("Ngozi", "she", "her", "her", "cousin"),
    Person("Pavel", "he", "him", "his", "uncle"),
)
FILLERS = (
    "ugh, what a week",
    "ok so",
    "random thing but",
    "before I forget",
    "lol anyway",
    "quick update",
    "not sure if I mentioned",
    "side note",
    "so yeah",
    "fun fact",
)
