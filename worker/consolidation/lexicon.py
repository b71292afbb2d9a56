"""Word lists that give a phrase its attribute: job words, diets, schools, car makes, pets,
music genres, events with a date, things with a deadline, and the nouns that name an
attribute when someone's X "is" a value ("Ana's GP is Dr. Lee")."""

from typing import Final

JOB_NOUNS: Final = frozenset(
    """designer nurse manager director analyst engineer developer programmer chef cook
    lecturer professor teacher lead assistant associate accountant barista supervisor partner
    paralegal lawyer attorney architect consultant scientist researcher doctor surgeon
    pharmacist technician mechanic electrician plumber writer journalist photographer officer
    clerk cashier driver pilot coordinator specialist administrator intern trainee apprentice
    ceo cto cfo coo founder president vp advisor adviser counselor counsellor therapist
    paramedic firefighter librarian receptionist waiter waitress bartender baker carpenter
    tutor instructor economist strategist marketer recruiter salesperson planner producer
    animator illustrator translator interpreter dentist vet veterinarian midwife caregiver
    secretary controller auditor actuary banker trader broker head principal dean editor
    curator physiotherapist psychologist nanny electrician welder tester worker dietitian
    nutritionist optician optometrist physician surveyor solicitor barrister hairdresser
    barber florist gardener courier inspector radiographer sonographer""".split()
)
JUDGEMENTS: Final = frozenset(
    """hard good great bad terrible excellent amazing fast slow quick tireless diligent
    natural born real decent brilliant awful fantastic wonderful lazy careful patient
    better best worse worst""".split()
)
"""Words that make "a N" a judgement of the subject, not a job ("a hard worker")."""
DIETS: Final = frozenset(
    """vegetarian vegan pescatarian pescetarian flexitarian keto paleo carnivore omnivore
    gluten-free dairy-free halal kosher""".split()
)
SCHOOL_WORDS: Final = frozenset(
    """school academy primary elementary high college university kindergarten preschool
    nursery montessori gymnasium lycee lycée institute""".split()
)
LANGUAGES: Final = frozenset(
    """english spanish french german italian portuguese dutch swedish norwegian danish
    finnish icelandic polish czech slovak hungarian romanian bulgarian greek turkish
    russian ukrainian serbian croatian arabic hebrew persian farsi urdu hindi bengali
    punjabi tamil telugu marathi gujarati mandarin cantonese chinese japanese korean
    vietnamese thai indonesian malay tagalog swahili amharic yoruba zulu welsh irish
    gaelic catalan basque latin esperanto""".split()
)
COMMUTE_MODES: Final = {
    **dict.fromkeys("cycle cycles cycling bike bikes biking bicycle".split(), "bike"),
    **dict.fromkeys("walk walks walking foot".split(), "walk"),
    **dict.fromkeys("drive drives driving car".split(), "car"),
    **dict.fromkeys("run runs running".split(), "run"),
    **dict.fromkeys("scoot scoots scooter e-scooter".split(), "scooter"),
    **dict.fromkeys("carpool carpools carpooling".split(), "carpool"),
    **dict.fromkeys("motorbike motorcycle moped".split(), "motorbike"),
    **{m: m for m in "bus train tube tram metro subway ferry underground coach boat".split()},
    "shuttle": "shuttle",
}
"""Ways of getting to work, each said one way: "cycles to work" and "goes by bike" agree."""
SHIFTS: Final = {
    **{w: w for w in "day night early late evening morning weekend back".split()},
    "graveyard": "night",
    "nights": "night",
    "days": "day",
    "earlies": "early",
    "lates": "late",
    "evenings": "evening",
    "weekends": "weekend",
}
"""Shifts, each said one way: "works nights" and "on the night shift" agree."""
CAR_MAKES: Final = frozenset(
    """fiat toyota volvo ford kia vw volkswagen honda mazda renault skoda tesla subaru bmw
    audi mercedes nissan hyundai peugeot citroen opel seat mini jeep chevrolet chevy dodge
    porsche lexus jaguar dacia suzuki mitsubishi polestar rivian lada saab alfa""".split()
)
PET_KINDS: Final = frozenset(
    """cat kitten dog puppy rabbit bunny parrot budgie hamster tortoise turtle greyhound
    beagle corgi labrador retriever poodle terrier spaniel ferret gecko snake lizard
    guinea pig goldfish fish horse pony cockatiel canary""".split()
)
GENRES: Final = frozenset(
    """jazz techno bluegrass k-pop pop rock punk metal classical folk country blues reggae
    soul funk house edm indie opera hip-hop rap disco trance ambient""".split()
)
EVENT_NOUNS: Final = frozenset(
    """meeting sync standup stand-up review class lesson lessons practice appointment flight
    train dinner party wedding interview exam offsite retro retrospective call session game
    match concert check-up checkup surgery check-in rehearsal recital workshop seminar
    training course reservation booking delivery viewing demo kickoff kick-off""".split()
)
DUE_THINGS: Final = (
    "thesis",
    "visa renewal",
    "visa",
    "grant report",
    "tax return",
    "portfolio",
    "essay",
    "assignment",
    "dissertation",
    "application",
    "report",
    "paper",
    "proposal",
    "submission",
    "rent payment",
)
DEVICE_NOUNS: Final = frozenset(
    """thermostat heating heater boiler radiator fridge freezer oven aircon ac air
    conditioning conditioner router wi-fi wifi network modem""".split()
)
PLAN_ANCHORS: Final = frozenset(
    """holiday holidays vacation trip wedding marathon party conference weekend summer winter
    christmas honeymoon birthday race festival""".split()
)
NOT_ATTRIBUTES: Final = frozenset(
    """son daughter kid kids child children sister brother mum mom mother dad father parents
    cousin niece nephew aunt uncle friend friends colleague coworker neighbour neighbor
    flatmate roommate housemate family team company class dog cat house flat place car home
    story life day week weekend trip way mind idea plan job""".split()
)
ATTRIBUTE_NOUNS: Final = {
    "address": "residence",
    "home address": "residence",
    "employer": "employer",
    "job title": "job_title",
    "title": "job_title",
    "role": "job_title",
    "position": "job_title",
    "partner": "partner",
    "wife": "partner",
    "husband": "partner",
    "girlfriend": "partner",
    "boyfriend": "partner",
    "spouse": "partner",
    "fiance": "partner",
    "fiancee": "partner",
    "pet": "pet",
    "only pet": "pet",
    "car": "car",
    "only car": "car",
    "school": "school",
    "diet": "diet",
    "phone": "phone",
    "phone number": "phone",
    "number": "phone",
    "mobile": "phone",
    "mobile number": "phone",
    "cell": "phone",
    "cell number": "phone",
    "email": "email",
    "email address": "email",
    "e-mail": "email",
    "manager": "manager",
    "boss": "manager",
    "line manager": "manager",
    "team lead": "manager",
    "team leader": "manager",
    "supervisor": "manager",
    "alarm": "setting:alarm",
    "password": "setting:password",
    "landlord": "landlord",
    "landlady": "landlord",
    "gp": "doctor",
    "doctor": "doctor",
    "dentist": "dentist",
}
PREFERENCE_KINDS: Final = {
    "food": "cuisine",
    "cuisine": "cuisine",
    "restaurant": "place to eat",
    "place": "place to eat",
    "spot": "place to eat",
    "cafe": "place to eat",
    "music": "music",
    "genre": "music",
    "band": "music",
    "editor": "coding tool",
    "ide": "coding tool",
    "drink": "morning drink",
    "morning drink": "morning drink",
    "colour": "colour",
    "color": "colour",
}
