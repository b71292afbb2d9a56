"""Template banks for the supersession benchmark's generator (`bench/supersession_gen.py`).

Everything here is made up. Placeholders: `{S}`/`{s}` the subject ("I" or a name),
`{P}`/`{p}` its possessive ("My"/"my" or "Ana's"), `{pp}` the possessive pronoun
("my"/"her"), `{pro}` the subject pronoun ("I"/"she"), `{obj}` ("me"/"her"), `{o}` ("me"/
"Ana"), `{D}` the thing with a personal deadline ("thesis"), `{V}` the
new value, `{O}` the old value, `{X}` another value of the same kind that is not the
subject's, `{N}`/`{M}` other people of the bank. `[a|b]` picks `a` for the first person
and `b` for the third. Thing subjects use `{T}` ("the Orion launch") and `{Tn}` ("Orion").

In every list, templates at positions 3, 7, 11, ... are held out: only the test half uses
them, so the test figures measure phrasings the rules were not tuned on.
"""

from typing import Final, TypedDict


class AttributeBank(TypedDict, total=False):
    values: list[str]
    state: list[str]
    update: list[str]
    restate: list[str]
    related: list[str]
    other_subject: list[str]
    other_attribute: list[str]
    first: list[str]


FIRST_NAMES: Final = [
    ("Ana", "f"), ("Ben", "m"), ("Chiara", "f"), ("Dmitri", "m"), ("Efua", "f"), ("Farid", "m"),
    ("Greta", "f"), ("Hiro", "m"), ("Ingrid", "f"), ("Jonas", "m"), ("Kalinda", "f"),
    ("Lucas", "m"), ("Mei", "f"), ("Nikolai", "m"), ("Olga", "f"), ("Pablo", "m"),
    ("Quinn", "f"), ("Rafael", "m"), ("Saoirse", "f"), ("Tomasz", "m"), ("Uma", "f"),
    ("Viktor", "m"), ("Wanjiru", "f"), ("Xavier", "m"), ("Yara", "f"), ("Zane", "m"),
    ("Amara", "f"), ("Bruno", "m"), ("Camila", "f"), ("Dario", "m"), ("Elif", "f"),
    ("Finn", "m"), ("Gaia", "f"), ("Hamza", "m"), ("Isla", "f"), ("Joao", "m"),
    ("Kasia", "f"), ("Leon", "m"), ("Marisol", "f"), ("Nuno", "m"), ("Orla", "f"), ("Pieter", "m"),
    ("Rania", "f"), ("Sven", "m"), ("Tamsin", "f"), ("Ugo", "m"), ("Vesna", "f"), ("Wes", "m"),
    ("Ayesha", "f"), ("Bodhi", "m"), ("Celine", "f"), ("Diego", "m"),
]
OTHER_NAMES: Final = [
    "Eva", "Omar", "Carla", "Pedro", "Lina", "Marek", "Sofia", "Idris", "Nadia", "Oscar",
    "Rosa", "Tariq", "Vera", "Emil", "Leila", "Arjun", "Beatriz", "Colm", "Dalia", "Esteban",
    "Fatima", "Goran", "Hedda", "Ivo", "Jana", "Kemal", "Lotte", "Mateo", "Nora", "Otto",
    "Petra", "Ravi", "Selma", "Teo", "Ulla", "Wim", "Ximena", "Yosef", "Zora", "Anouk",
    "Bram", "Cleo", "Dev", "Elsa", "Felix", "Gwen", "Hugo", "Iris", "Jude", "Kira",
    "Lars", "Maren", "Nils", "Olena", "Paolo", "Rhea", "Stefan", "Tove", "Umar", "Valeria",
    "Wendel", "Yvette", "Zeynep", "Abel", "Bianca", "Cyril", "Dunja", "Edgar", "Flora", "Gideon",
]
KIDS: Final = [
    ("Leo", "son"), ("Mia", "daughter"), ("Theo", "son"), ("Lila", "daughter"), ("Max", "son"),
    ("Nina", "daughter"), ("Sami", "son"), ("Ada", "daughter"), ("Noah", "son"),
    ("Ella", "daughter"), ("Kai", "son"), ("Zoe", "daughter"),
]
CITIES: Final = [
    "Porto", "Lyon", "Leeds", "Austin", "Denver", "Osaka", "Gdansk", "Valencia", "Bristol",
    "Utrecht", "Tampere", "Cork", "Graz", "Halifax", "Adelaide", "Nantes", "Bologna", "Tucson",
    "Quito", "Aarhus", "Bergen", "Ghent", "Seville", "Kyoto", "Perth", "Dunedin", "Brno",
]
COMPANIES: Final = [
    "Acme", "Globex", "Initech", "Hooli", "Vandelay Imports", "Wonka Foods", "Cyberdyne",
    "Tyrell Systems", "Nakatomi Trading", "Monarch Bank", "Aperture Retail", "Soylent Labs",
    "Stark Logistics", "Oscorp Media", "Bluth Homes", "Prestige Worldwide", "Kraken Studio",
    "Brightwater Clinic", "Northwind Traders", "Fabrikam", "Contoso", "Tailspin Air",
]
TITLES: Final = [
    "junior designer|senior designer|design lead",
    "staff nurse|charge nurse|ward manager",
    "sales associate|sales manager|regional sales director",
    "data analyst|senior data analyst|head of analytics",
    "line cook|sous chef|head chef",
    "teaching assistant|lecturer|senior lecturer",
    "support engineer|team lead|engineering manager",
    "paralegal|associate|partner at the firm",
    "junior accountant|accountant|finance manager",
    "barista|shift supervisor|store manager",
]
PETS: Final = [
    "a tabby cat|Miso", "a beagle|Bruno", "a rabbit|Clover", "a grey parrot|Kiwi",
    "a hamster|Nibbles", "a tortoise|Shelly", "a greyhound|Bolt", "a black cat|Pepper",
    "a corgi|Waffles", "a budgie|Sky", "a ferret|Noodle", "a labrador|Maple",
]
CARS: Final = [
    "a blue Fiat Panda|Panda", "a Toyota Yaris|Yaris", "a grey Volvo V60|Volvo",
    "an old Ford Fiesta|Fiesta", "a Kia Niro EV|Niro", "a white VW Golf|Golf",
    "a Honda Jazz|Jazz", "a red Mazda 3|Mazda", "a Renault Clio|Clio", "a Skoda Octavia|Octavia",
    "a Tesla Model Y|Tesla", "a Subaru Outback|Subaru",
]
SCHOOLS: Final = [
    "Hillside Primary", "Brookfield School", "St. Anne's Academy", "Riverside Middle School",
    "Oakwood High", "Lakeview Elementary", "Pinecrest School", "Maple Grove Academy",
    "Northgate Primary", "Westfield High", "Harbour View School", "Elmwood Academy",
]
DIETS: Final = ["vegetarian", "vegan", "pescatarian", "flexitarian", "keto"]
MANAGERS: Final = [
    "Priya Shah", "Tom Okafor", "Dana Wu", "Kofi Mensah", "Lena Fischer", "Marco Rossi",
    "Aiko Tanaka", "Sam Doyle", "Ines Duarte", "Raj Patel", "Hana Novak", "Luis Ortega",
    "Greta Lind", "Yusuf Demir", "Clara Moreau", "Ben Adler",
]
DATES: Final = [
    "March 3", "April 10", "May 22", "June 28", "July 14", "September 1", "October 15",
    "November 30", "December 12", "January 20", "February 9", "August 5",
]
PASSWORDS: Final = ["sunflower42", "bluejay-7731", "otter!plum9", "cactus-2024", "maple77leaf"]
TEMPERATURES: Final = ["21 degrees", "19 degrees", "22.5 degrees", "18 degrees", "20 degrees"]
ALARMS: Final = ["6:30am", "7:15am", "5:45am", "8:00am", "6:50am"]
CUISINES: Final = ["Thai", "Ethiopian", "Georgian", "Peruvian", "Korean", "Lebanese", "Sichuan"]
DRINKS: Final = ["black coffee", "green tea", "matcha", "rooibos", "espresso", "chai"]
GENRES: Final = ["jazz", "techno", "bluegrass", "k-pop", "classical music", "punk rock"]
EDITORS: Final = ["Vim", "VS Code", "Emacs", "Sublime Text", "PyCharm"]
PROJECTS: Final = [
    "Orion", "Atlas", "Kestrel", "Nimbus", "Juniper", "Falcon", "Beacon", "Harbor", "Lumen",
    "Sparrow", "Vega", "Quartz", "Meridian", "Cobalt", "Tundra", "Saffron", "Pylon", "Ember",
    "Drift", "Solstice", "Bramble", "Halcyon", "Gannet", "Obsidian",
]

ATTRIBUTES: Final[dict[str, AttributeBank]] = {
    "residence": {
        "values": CITIES,
        "state": [
            "{S} [live|lives] in {V}.",
            "{P} home is in {V}.",
            "{S} [am|is] based in {V}.",
            "{S} [rent|rents] a flat in {V}.",
            "{S} [have|has] lived in {V} for years.",
            "{S} [live|lives] in {V} with two flatmates.",
            "{P} address is in {V}, close to the old market.",
            "Home for {o} is {V}.",
        ],
        "update": [
            "{S} moved to {V}.",
            "{S} moved to {V} last month.",
            "{S} [have|has] relocated to {V}.",
            "{S} moved from {O} to {V}.",
            "{S} [live|lives] in {V} now.",
            "{S} left {O} and now [live|lives] in {V}.",
            "These days {s} [live|lives] in {V}.",
            "{S} packed up and moved to {V} in the spring.",
            "{S} finally settled in {V}.",
            "{P} new place is in {V}.",
            "After years in {O}, {s} [am|is] living in {V}.",
            "{S} [have|has] a flat in {V} now.",
        ],
        "restate": [
            "{S} still [live|lives] in {V}.",
            "{S} [am|is] still based in {V}.",
            "{S} [have|has] been living in {V} for a while now.",
            "{P} home is still in {V}.",
            "{S} [really like|really likes] living in {V}.",
        ],
        "related": [
            "{S} visited {X} for a long weekend.",
            "{S} helped {pp} friend {N} move to {X}.",
            "{S} flew to {X} for a conference.",
            "{S} [was|was] so happy to be back home after the trip to {X}.",
            "{S} changed the locks on the front door.",
            "{S} moved the sofa to the other side of the living room.",
            "{S} moved into the spare room while the bedroom was being painted.",
            "{S} spent the whole weekend in {X} with friends.",
            "{P} new neighbours moved in on Friday.",
            "{S} went back to {X} for a friend's wedding.",
        ],
        "other_subject": [
            "{P} cousin {N} moved to {X}.",
            "{P} parents live in {X}.",
            "{P} colleague {N} relocated to {X}.",
            "{P} best friend {N} lives in {X} now.",
            "{N} just moved to {X} for a new job.",
            "{P} old flatmate {N} has a flat in {X}.",
        ],
        "other_attribute": [
            "{S} [was|was] born in {X}.",
            "{P} office is in {X}.",
            "{S} grew up in {X}.",
            "{S} [commute|commutes] to {X} twice a week.",
            "{S} [study|studies] German at an evening school in {X}.",
        ],
    },
    "employer": {
        "values": COMPANIES,
        "state": [
            "{S} [work|works] at {V}.",
            "{S} [work|works] for {V}.",
            "{S} [am|is] employed by {V}.",
            "{S} [have|has] a job at {V}.",
            "{S} [am|is] on the payroll at {V}.",
            "{P} employer is {V}.",
            "{S} [do|does] {pp} day job at {V}.",
        ],
        "update": [
            "{S} joined {V}.",
            "{S} left {O} and joined {V}.",
            "{S} [work|works] at {V} now.",
            "{S} started a new job at {V}.",
            "{S} switched jobs; {pro} [am|is] at {V} now.",
            "{S} quit {O} for a job at {V}.",
            "{S} [have|has] moved over to {V}.",
            "{S} took a job with {V}.",
            "{S} [am|is] with {V} these days.",
            "{S} accepted an offer from {V} and [start|starts] there on Monday.",
        ],
        "restate": [
            "{S} still [work|works] at {V}.",
            "{S} [am|is] still with {V}.",
            "{S} [have|has] been at {V} for a while now.",
            "{S} [enjoy|enjoys] working at {V}.",
        ],
        "related": [
            "{S} started a new project at work.",
            "{P} team switched to a new ticketing system.",
            "{S} changed the toner in the office printer.",
            "{S} had coffee with a recruiter from {X}.",
            "{P} company moved to a new office building.",
            "{S} [was|was] happy with {pp} performance review.",
            "{S} got a new job offer from {X} but turned it down.",
            "{S} updated {pp} CV over the weekend.",
            "{S} moved {pp} desk next to the window at work.",
            "{S} now [work|works] from the kitchen table most mornings.",
        ],
        "other_subject": [
            "{P} colleague {N} joined {X}.",
            "{N} works at {X}.",
            "{P} neighbour {N} got a job at {X}.",
            "{N} left {X} after ten years.",
            "{P} friend {N} is employed by {X} now.",
        ],
        "other_attribute": [
            "{S} [work|works] from home on Fridays.",
            "{S} [do|does] freelance translation on the side.",
            "{S} [volunteer|volunteers] at the food bank on Saturdays.",
            "{S} [have|has] a degree in economics.",
        ],
    },
    "job_title": {
        "values": TITLES,
        "state": [
            "{S} [work|works] as {aV}.",
            "{S} [am|is] {aV}.",
            "{P} job title is {V}.",
            "{S} [have|has] been {aV} for two years.",
            "{S} [am|is] employed as {aV}.",
            "{P} role is {V}.",
        ],
        "update": [
            "{S} [was|was] promoted to {V}.",
            "{S} became {aV}.",
            "{S} [am|is] {aV} now.",
            "{S} got promoted from {O} to {V}.",
            "{S} stepped up to {V}.",
            "{P} new title is {V}.",
            "{S} [work|works] as {aV} these days.",
            "{S} [have|has] taken on the role of {V}.",
        ],
        "restate": [
            "{S} [am|is] still {aV}.",
            "{S} still [work|works] as {aV}.",
            "{P} title is still {V}.",
        ],
        "related": [
            "{S} became the captain of the Sunday football team.",
            "{S} [was|was] named employee of the month.",
            "{S} started mentoring two new interns.",
            "{S} changed the layout of the team's weekly report.",
            "{S} [was|was] really happy with the feedback from {pp} manager.",
            "{S} switched teams for the summer hackathon.",
            "{S} led the new onboarding session on Tuesday.",
        ],
        "other_subject": [
            "{P} colleague {N} was promoted to team lead.",
            "{N} became head of sales last spring.",
            "{P} friend {N} is a senior architect now.",
            "{N} works as a paramedic.",
        ],
        "other_attribute": [
            "{S} [have|has] a master's degree in chemistry.",
            "{S} [speak|speaks] three languages.",
            "{S} [am|is] certified as a first aider.",
        ],
    },
    "partner": {
        "values": [],
        "state": [
            "{S} [am|is] dating {V}.",
            "{P} partner is {V}.",
            "{S} [am|is] married to {V}.",
            "[{V} and I|{S} and {V}] have been together for three years.",
            "{S} [am|is] in a relationship with {V}.",
            "{P} wife is {V}.",
            "{S} [live|lives] with {pp} partner {V}.",
        ],
        "update": [
            "[{O} and I|{S} and {O}] broke up; {pro} [am|is] seeing {V} now.",
            "{S} [am|is] engaged to {V}.",
            "{S} [have|has] a new partner, {V}.",
            "{S} married {V} in June.",
            "{S} [am|is] with {V} now.",
            "{S} split from {O} and is dating {V}.",
            "[{V} and I|{S} and {V}] are a couple now.",
            "{S} got together with {V} over the summer.",
        ],
        "restate": [
            "{S} [am|is] still with {V}.",
            "[{V} and I|{S} and {V}] are still together.",
            "{S} [am|is] happily married to {V}.",
        ],
        "related": [
            "{S} and {V} went to a new restaurant by the river.",
            "{S} changed {pp} profile picture to one with {V}.",
            "{S} [was|was] very happy when {V} surprised {obj} with concert tickets.",
            "{V} moved the bookshelf into the spare room for {obj}.",
            "{S} and {V} switched seats on the plane so {V} could sleep.",
            "{S} bought {V} a new watch for {pp} birthday.",
            "{S} and {V} started a pottery class together.",
        ],
        "other_subject": [
            "{P} friend {N} got engaged to {M}.",
            "{P} flatmate {N} is dating {M} now.",
            "{N} and {M} split up last month.",
            "{P} cousin {N} married {M} in the spring.",
        ],
        "other_attribute": [
            "{S} [have|has] two older brothers.",
            "{S} [am|is] godparent to {N}'s daughter.",
        ],
    },
    "pet": {
        "values": PETS,
        "state": [
            "{P} pet is {Va} named {Vn}.",
            "{S} [have|has] one pet, {Va} called {Vn}.",
            "{P} only pet is {Vn}, {Va}.",
            "{P} pet: {Va} called {Vn}.",
            "The only animal in {p} home is {Vn}, {Va}.",
        ],
        "first": [
            "{S} [share|shares] the flat with {Va} called {Vn}.",
            "{S} [have|has] {Va} named {Vn}.",
        ],
        "update": [
            "{S} rehomed {On} and adopted {Va} named {Vn}.",
            "{P} pet these days is {Va} called {Vn}.",
            "{On} went to live with {pp} parents; now {s} [have|has] {Va} named {Vn}.",
            "{S} [have|has] {Va} called {Vn} now, since {On} passed away last winter.",
            "{P} only pet now is {Vn}, {Va}.",
            "After losing {On}, {s} adopted {Va} called {Vn}.",
        ],
        "restate": [
            "{S} still [have|has] {Vn}, {pp} {Vk}.",
            "{Vn} is still {p} only pet.",
            "{S} [adore|adores] {Vn}, {pp} {Vk}.",
        ],
        "related": [
            "{S} took {Vn} to the vet for a check-up.",
            "{S} bought {Vn} a new bed.",
            "{Vn} became very playful after the new food.",
            "{S} changed {Vn}'s water bowl.",
            "{Vn} switched from sleeping on the sofa to sleeping on the bed.",
            "{S} [was|was] happy that {Vn} finally likes the new carrier.",
            "{S} moved {Vn}'s basket closer to the radiator.",
        ],
        "other_subject": [
            "{P} neighbour {N} got a new puppy.",
            "{N} adopted a kitten from the shelter.",
            "{P} cousin {N} has a parrot now.",
            "{N}'s dog is called Rufus.",
        ],
        "other_attribute": [
            "{S} [am|is] allergic to horses.",
            "{S} [grew|grew] up on a farm with goats.",
        ],
    },
    "car": {
        "values": CARS,
        "state": [
            "{S} [drive|drives] {V}.",
            "{P} car is {V}.",
            "{S} [own|owns] {V}.",
            "{S} [get|gets] around in {V}.",
            "{P} only car is {V}.",
        ],
        "update": [
            "{S} sold the {Os} and bought {V}.",
            "{S} [drive|drives] {V} now.",
            "{S} traded in the {Os} for {V}.",
            "{S} replaced the {Os} with {V}.",
            "{P} new car is {V}.",
            "{S} got rid of the {Os}; {pro} [drive|drives] {V} these days.",
            "{S} [have|has] switched to {V}.",
        ],
        "restate": [
            "{S} still [drive|drives] the {Vs}.",
            "{P} car is still the {Vs}.",
            "{S} [love|loves] driving the {Vs}.",
        ],
        "related": [
            "{S} moved the car to the other side of the street.",
            "{S} got the {Vs} washed.",
            "{S} replaced the wiper blades on the {Vs}.",
            "{S} changed the oil in the {Vs}.",
            "{S} [was|was] happy the {Vs} passed its inspection.",
            "{S} drove {pp} new colleague home after the party.",
            "{S} swapped the winter tyres for summer ones.",
            "{S} moved the car into the garage before the storm.",
        ],
        "other_subject": [
            "{P} colleague {N} bought a new car.",
            "{N} switched to an electric car.",
            "{N} drives a vintage Mini.",
            "{P} neighbour {N} sold the camper van.",
        ],
        "other_attribute": [
            "{S} [cycle|cycles] to work when it is dry.",
            "{S} [have|has] a motorbike licence.",
        ],
    },
    "school": {
        "values": SCHOOLS,
        "state": [
            "{K} goes to {V}.",
            "{K} attends {V}.",
            "{K} is a pupil at {V}.",
            "{K} is in year four at {V}.",
            "{K}'s school is {V}.",
        ],
        "update": [
            "{K} switched to {V}.",
            "{K} now goes to {V}.",
            "{K} started at {V} in September.",
            "{K} moved from {O} to {V}.",
            "{K} changed schools and attends {V} now.",
            "{K} transferred to {V} after the summer.",
        ],
        "restate": [
            "{K} is still at {V}.",
            "{K} still goes to {V}.",
            "{K} loves going to {V}.",
        ],
        "related": [
            "{K} started a new art club at school.",
            "{K}'s class moved to a new classroom.",
            "{K} was happy with the new teacher.",
            "{K} changed seats to sit next to a friend.",
            "{K} became the class representative.",
            "{K} switched from violin to cello lessons.",
        ],
        "other_subject": [
            "{N}'s daughter goes to {X}.",
            "{P} niece {N} started at {X}.",
            "{N} moved to {X} this year.",
        ],
        "other_attribute": [
            "{K} plays football on Saturday mornings.",
            "{K} is allergic to peanuts.",
        ],
    },
    "diet": {
        "values": DIETS,
        "state": [
            "{S} [am|is] {V}.",
            "{S} [follow|follows] a {V} diet.",
            "{S} [eat|eats] {V}.",
            "{S} [have|has] been {V} since university.",
            "{S} [keep|keeps] to a strictly {V} diet.",
        ],
        "update": [
            "{S} went {V}.",
            "{S} [am|is] {V} now.",
            "{S} switched to a {V} diet.",
            "{S} [am|is] no longer {O}; {pro} [am|is] {V} now.",
            "{S} [have|has] become {V}.",
            "{S} stopped being {O} and [eat|eats] {V} now.",
            "These days {s} [eat|eats] {V}.",
        ],
        "restate": [
            "{S} [am|is] still {V}.",
            "{S} still [eat|eats] {V}.",
            "{S} [have|has] stuck with being {V}.",
        ],
        "related": [
            "{S} tried a new vegan bakery downtown.",
            "{S} changed the lasagne recipe to use less salt.",
            "{S} [was|was] happy with the new menu at the canteen.",
            "{S} started a cooking class on Thursdays.",
            "{S} replaced the old frying pan.",
            "{S} now [make|makes] {pp} own bread on Sundays.",
            "{S} switched supermarkets because the old one closed.",
        ],
        "other_subject": [
            "{P} flatmate {N} went vegan in January.",
            "{N} is no longer vegetarian.",
            "{P} friend {N} is gluten-free.",
        ],
        "other_attribute": [
            "{S} [am|is] lactose intolerant.",
            "{S} [drink|drinks] two litres of water a day.",
        ],
    },
    "phone": {
        "values": [f"555-01{n:02d}" for n in range(10, 99, 3)],
        "state": [
            "{P} phone number is {V}.",
            "{P} mobile is {V}.",
            "{S} can be reached on {V}.",
            "{P} number is {V}.",
            "Call {o} on {V}.",
            "{P} mobile number: {V}.",
        ],
        "update": [
            "{P} new number is {V}.",
            "{S} changed {pp} number to {V}.",
            "{P} phone number is now {V}.",
            "{S} got a new SIM; the number is {V}.",
            "{P} number changed to {V}.",
            "Use {V} to reach {o} from now on.",
        ],
        "restate": [
            "{P} number is still {V}.",
            "{S} can still be reached on {V}.",
        ],
        "related": [
            "{S} dropped {pp} phone and cracked the screen.",
            "{S} replaced {pp} phone case.",
            "{S} updated the apps on {pp} phone.",
            "{S} switched {pp} phone to silent during the concert.",
            "{P} phone became very slow after the update.",
            "{S} changed {pp} ringtone to a bird song.",
            "{S} got a new charger for {pp} phone.",
        ],
        "other_subject": [
            "{N}'s number is {X}.",
            "{P} cousin {N} has a new number, {X}.",
            "{N} can be reached on {X}.",
        ],
        "other_attribute": [
            "{P} landline at work is extension 4410.",
            "{S} [prefer|prefers] texts to calls.",
        ],
    },
    "email": {
        "values": [],
        "state": [
            "{P} email is {V}.",
            "{P} email address is {V}.",
            "{S} [use|uses] {V} for email.",
            "{P} address for email is {V}.",
        ],
        "update": [
            "{P} new email is {V}.",
            "{S} switched to {V} for email.",
            "{P} email changed to {V}.",
            "Write to {o} at {V} from now on.",
            "{P} email address is now {V}.",
        ],
        "restate": ["{P} email is still {V}."],
        "related": [
            "{S} cleaned out {pp} inbox on Sunday.",
            "{S} changed the signature in {pp} emails.",
            "{S} [was|was] happy to reach inbox zero.",
            "{S} switched off email notifications on weekends.",
        ],
        "other_subject": ["{N}'s email is {N_email}.", "{N} has a new email address."],
        "other_attribute": ["{S} [check|checks] email only twice a day."],
    },
    "manager": {
        "values": MANAGERS,
        "state": [
            "{P} manager is {V}.",
            "{S} [report|reports] to {V}.",
            "{P} boss is {V}.",
            "{S} [work|works] under {V}.",
            "{P} line manager is {V}.",
        ],
        "update": [
            "{S} [report|reports] to {V} now.",
            "{P} new manager is {V}.",
            "{V} became {pp} manager after the reorg.",
            "{O} left, so {s} now [report|reports] to {V}.",
            "After the reshuffle {s} [have|has] a new boss, {V}.",
            "{V} took over as {pp} manager.",
            "{S} [have|has] been moved under {V}.",
        ],
        "restate": [
            "{S} still [report|reports] to {V}.",
            "{P} manager is still {V}.",
        ],
        "related": [
            "{P} manager praised {pp} report in the meeting.",
            "{S} had a new one-on-one format with {pp} manager.",
            "{S} [was|was] happy when {pp} manager approved the holiday.",
            "{S} moved the weekly check-in with {pp} manager to Thursdays.",
            "{S} changed the agenda for the team meeting.",
        ],
        "other_subject": [
            "{P} colleague {N} reports to {X} now.",
            "{N}'s new boss is {X}.",
            "{N} became a manager last year.",
        ],
        "other_attribute": ["{S} [manage|manages] a team of four."],
    },
    "preference": {
        "values": [],
        "state": [],
        "update": [],
        "restate": [],
        "related": [
            "{S} tried the new Thai place on Elm Street.",
            "{S} [was|was] happy with the coffee at the new café.",
            "{S} changed the playlist for the party.",
            "{S} started a new series on TV.",
            "{S} now [know|knows] how to make proper ramen.",
        ],
        "other_subject": [
            "{N}'s favourite food is sushi.",
            "{P} friend {N} prefers tea these days.",
            "{N} switched to decaf.",
        ],
        "other_attribute": ["{S} [hate|hates] the cold."],
    },
}

PREFERENCES: Final[dict[str, AttributeBank]] = {
    "cuisine": {
        "values": CUISINES,
        "state": [
            "{P} favourite cuisine is {V}.",
            "{S} [like|likes] {V} food best.",
            "{S} [love|loves] {V} food more than anything.",
            "{P} favorite food is {V}.",
            "{S} always [pick|picks] {V} when eating out.",
        ],
        "update": [
            "{P} favourite cuisine is {V} now.",
            "{S} [prefer|prefers] {V} food these days.",
            "{S} went off {O} food and [love|loves] {V} now.",
            "Lately {s} [like|likes] {V} food best.",
            "{V} has replaced {O} as {p} favourite cuisine.",
        ],
        "restate": ["{S} still [love|loves] {V} food.", "{V} is still {p} favourite cuisine."],
        "related": [], "other_subject": [], "other_attribute": [],
    },
    "drink": {
        "values": DRINKS,
        "state": [
            "{S} [drink|drinks] {V} every morning.",
            "{S} [start|starts] the day with {V}.",
            "{P} morning drink is {V}.",
            "{S} always [have|has] {V} at breakfast.",
        ],
        "update": [
            "{S} gave up {O} and [drink|drinks] {V} in the morning now.",
            "{S} switched from {O} to {V}.",
            "{S} [drink|drinks] {V} in the morning instead of {O}.",
            "These days {s} [start|starts] the day with {V}.",
            "{S} [have|has] replaced {O} with {V} at breakfast.",
        ],
        "restate": ["{S} still [drink|drinks] {V} every morning."],
        "related": [], "other_subject": [], "other_attribute": [],
    },
    "music": {
        "values": GENRES,
        "state": [
            "{P} favourite music is {V}.",
            "{S} mostly [listen|listens] to {V}.",
            "{S} [am|is] really into {V}.",
            "{P} favourite genre is {V}.",
        ],
        "update": [
            "{S} [am|is] into {V} now.",
            "{P} favourite music these days is {V}.",
            "{S} [have|has] moved on from {O} to {V}.",
            "{S} mostly [listen|listens] to {V} now.",
        ],
        "restate": ["{S} [am|is] still into {V}."],
        "related": [], "other_subject": [], "other_attribute": [],
    },
    "editor": {
        "values": EDITORS,
        "state": [
            "{S} [write|writes] code in {V}.",
            "{P} editor of choice is {V}.",
            "{S} [use|uses] {V} for coding.",
            "{P} favourite editor is {V}.",
        ],
        "update": [
            "{S} switched from {O} to {V}.",
            "{S} [code|codes] in {V} now.",
            "{P} editor of choice is {V} these days.",
            "{S} gave up on {O}; {pro} [use|uses] {V} now.",
        ],
        "restate": ["{S} still [use|uses] {V} for coding."],
        "related": [], "other_subject": [], "other_attribute": [],
    },
}

DEADLINE_THING: Final[AttributeBank] = {
    "values": DATES,
    "state": [
        "The {Tn} launch is due on {V}.",
        "{Tn}'s deadline is {V}.",
        "The deadline for {Tn} is {V}.",
        "{Tn} ships on {V}.",
        "We have to deliver {Tn} by {V}.",
        "The {Tn} release date is {V}.",
    ],
    "update": [
        "The {Tn} deadline was pushed back to {V}.",
        "{Tn} slipped to {V}.",
        "The {Tn} deadline moved to {V}.",
        "The client moved the {Tn} deadline up to {V}.",
        "New date for {Tn}: {V}.",
        "{Tn} is now due on {V}.",
        "The {Tn} launch was postponed until {V}.",
        "{Tn} got rescheduled from {O} to {V}.",
    ],
    "restate": ["{Tn} is still due on {V}.", "Reminder: {Tn} is due on {V}."],
    "related": [
        "The {Tn} team moved the standup to the big meeting room.",
        "{N} updated the {Tn} roadmap slides.",
        "The {Tn} team was happy with the demo.",
        "{N} changed the colours on the {Tn} dashboard.",
        "The {Tn} kickoff was moved to a bigger room because so many people came.",
        "{N} started writing the {Tn} release notes.",
        "The {Tn} team switched to two-week sprints.",
    ],
    "other_subject": ["The {X_project} deadline is {X}."],
    "other_attribute": [
        "{Tn}'s budget was approved in January.",
        "The {Tn} code lives in the main repo.",
    ],
}

LEAD_THING: Final[AttributeBank] = {
    "values": MANAGERS,
    "state": [
        "{Tn} is led by {V}.",
        "{V} runs the {Tn} project.",
        "The {Tn} lead is {V}.",
        "{V} manages {Tn}.",
    ],
    "update": [
        "{V} took over {Tn} from {O}.",
        "{V} is the new lead on {Tn}.",
        "{Tn} is led by {V} now.",
        "{O} handed {Tn} over to {V}.",
        "{V} now manages {Tn}.",
    ],
    "restate": ["{V} still runs {Tn}."],
    "related": [
        "{V} moved the {Tn} retro to Friday afternoon.",
        "{V} was happy with the {Tn} sprint review.",
        "{V} changed the {Tn} ticket labels.",
    ],
    "other_subject": ["{X} leads the {X_project} project."],
    "other_attribute": [],
}

DEVICES: Final[list[tuple[str, list[str], AttributeBank]]] = [
    (
        "thermostat",
        ["the hallway thermostat", "the bedroom thermostat", "the office thermostat"],
        {
            "values": TEMPERATURES,
            "state": [
                "{T} is set to {V}.",
                "We keep {T} at {V}.",
                "{T} holds the house at {V}.",
                "{T}'s target temperature is {V}.",
            ],
            "update": [
                "We turned {T} down to {V}.",
                "{T} is set to {V} now.",
                "Someone changed {T} to {V}.",
                "{T} was bumped up to {V}.",
            ],
            "restate": ["{T} is still at {V}."],
            "related": [
                "Someone replaced the batteries in {T}.",
                "We moved {T} to the other wall.",
                "The display on {T} became dim.",
                "The heating switched on by itself at night.",
            ],
            "other_subject": [], "other_attribute": ["{T} was installed in 2019."],
        },
    ),
    (
        "router",
        ["the office router", "the home Wi-Fi", "the studio router"],
        {
            "values": PASSWORDS,
            "state": [
                "The password for {T} is {V}.",
                "{T}'s password is {V}.",
                "{T} password: {V}.",
                "To log in to {T} use {V}.",
            ],
            "update": [
                "The password for {T} was changed to {V}.",
                "{T}'s password is now {V}.",
                "New password for {T}: {V}.",
                "We reset {T}'s password to {V}.",
            ],
            "restate": ["{T}'s password is still {V}."],
            "related": [
                "We moved {T} to the hallway shelf.",
                "{N} updated the firmware on {T}.",
                "{T} switched channels overnight.",
                "{T} became unreachable during the storm.",
            ],
            "other_subject": [], "other_attribute": ["{T} is in the cupboard by the door."],
        },
    ),
]

ALARM: Final[AttributeBank] = {
    "values": ALARMS,
    "state": [
        "{P} alarm is set for {V}.",
        "{S} [wake|wakes] up at {V} on weekdays.",
        "{P} alarm goes off at {V}.",
        "{S} [set|sets] {pp} alarm for {V} every day.",
    ],
    "update": [
        "{S} moved {pp} alarm to {V}.",
        "{P} alarm goes off at {V} now.",
        "{S} [get|gets] up at {V} these days.",
        "{S} changed {pp} alarm to {V}.",
    ],
    "restate": ["{P} alarm is still set for {V}."],
    "related": [], "other_subject": [], "other_attribute": [],
}

PERSONAL_DEADLINE: Final[AttributeBank] = {
    "values": DATES,
    "state": [
        "{P} {D} is due on {V}.",
        "{P} {D} has to be in by {V}.",
        "The deadline for {p} {D} is {V}.",
        "{S} [have|has] to hand in {pp} {D} by {V}.",
        "{P} {D} deadline is {V}.",
    ],
    "update": [
        "{P} {D} deadline was extended to {V}.",
        "{P} {D} is now due on {V}.",
        "{P} {D} deadline moved to {V}.",
        "{S} got an extension on {pp} {D} until {V}.",
        "The {D} deadline for {o} was brought forward to {V}.",
        "{P} {D} is due on {V} instead of {O}.",
    ],
    "restate": ["{P} {D} is still due on {V}.", "{S} still [have|has] to hand in {pp} {D} by {V}."],
    "related": [], "other_subject": [], "other_attribute": [],
}
PERSONAL_DEADLINES: Final = ["thesis", "visa renewal", "grant report", "tax return", "portfolio"]

EPISODES: Final = [
    "{S} moved the car to the other side of the street.",
    "{S} changed the baby's nappy just before the guests arrived.",
    "{S} started a new book last night.",
    "{S} changed trains at Central Station on the way back.",
    "{S} moved to the front row during the concert.",
    "{S} moved to a quieter table in the café.",
    "{S} became a bit emotional at {N}'s farewell party.",
    "{S} got a new haircut on Saturday.",
    "{S} now [know|knows] how to bake sourdough.",
    "{S} bought a new lamp for the study.",
    "{S} switched to the slow lane because of the fog.",
    "{S} joined a new book club at the library.",
    "{S} left the party early because of a headache.",
    "{S} quit the pottery class after two sessions.",
    "{S} started at the gym on Monday.",
    "{S} ran into {N} at the market and they talked for an hour.",
    "{S} went to a new climbing wall with {N}.",
    "{S} started running again after the holidays.",
    "{S} finally replaced the old umbrella.",
    "{S} got new glasses yesterday.",
    "{S} switched banks to get a better rate.",
    "{S} moved the dentist appointment to next week.",
    "{S} changed {pp} mind about the paint colour for the hall.",
    "{S} [have|has] a new favourite podcast about history.",
]
FEELINGS: Final = [
    "{S} [was|was] very happy when the parcel finally arrived.",
    "{S} [feel|feels] so happy about the new garden.",
    "{S} [am|is] really happy with how the kitchen turned out.",
    "{S} [was|was] thrilled when the team won on Sunday.",
    "{S} [feel|feels] nervous about the new project at work.",
    "{S} [am|is] happier now that the days are longer.",
    "{S} became anxious during the bumpy flight.",
    "{S} [am|is] no longer worried about the exam results.",
    "{S} [feel|feels] much calmer since starting yoga.",
    "{S} [was|was] a bit sad when the old bakery closed.",
    "{S} [am|is] excited about the new season of the series.",
    "{S} [was|was] happy to finally meet {N}'s new baby.",
    "{S} [feel|feels] like a new person after the holiday.",
    "{S} [am|is] now much more relaxed about flying.",
]
ACTIONS: Final = [
    "{S} moved the sofa closer to the window.",
    "{S} changed the bedsheets and aired the room.",
    "{S} replaced the kitchen tap.",
    "{S} switched the router off and on again.",
    "{S} painted the garden fence a new colour.",
    "{S} moved the bookshelf into the hallway.",
    "{S} updated the calendar on the fridge.",
    "{S} replaced the broken tile in the bathroom.",
    "{S} changed the light bulb in the hallway.",
    "{S} moved the plants to the balcony so they get more sun.",
    "{S} switched the heating on for the first time this autumn.",
    "{S} swapped the old curtains for new blinds.",
    "{S} moved the printer to the spare room.",
    "{S} replaced the batteries in the smoke alarm.",
    "{S} updated the shopping list with new items.",
    "{S} rearranged the kitchen cupboards.",
]
CHAT_OPENERS: Final = ["", "", "", "By the way, ", "Quick update: ", "Oh, ", "So, ", "Guess what: "]
CHAT_CLOSERS: Final = ["", "", "", " :)", " Crazy, right?", "!", " Long story.", " Anyway."]
