"""Word pools the content plan draws from.

Entities are built by combining two pools (brand x product, first x last name, ...), so an hour of
video can name a hundred-odd distinct things without repeating one. Names are plain ASCII and avoid
letters OCR misreads inside codes (see ``CODE_LETTERS``).
"""

from __future__ import annotations

BRANDS = (
    "Aurora", "Zephyr", "Nimbus", "Orion", "Vela", "Kestrel", "Larkspur", "Solace", "Tidewater", "Ember",
    "Halcyon", "Juniper", "Quill", "Ridgeline", "Sable", "Tundra", "Verity", "Willow", "Yarrow", "Zenith",
    "Alder", "Beacon", "Cobalt", "Drift", "Everest", "Fable", "Glacier", "Harbor", "Jasper", "Kinetic",
    "Lumen", "Meridian", "Nova", "Onyx", "Pinnacle", "Quartz", "Radiant", "Summit", "Triton", "Vantage",
)

PRODUCTS = (
    "espresso machine", "kettle", "standing desk", "robot vacuum", "e-bike", "drone", "smartwatch",
    "air purifier", "blender", "projector", "headphones", "tablet", "camera", "rice cooker", "heater",
    "desk lamp", "keyboard", "monitor", "router", "scooter", "sewing machine", "toaster", "label printer",
    "soundbar", "microwave", "dehumidifier", "treadmill", "coffee grinder", "bread maker", "air fryer",
    "power bank", "webcam", "speaker", "thermostat", "doorbell", "juicer",
)

FIRST_NAMES = (
    "Priya", "Mateo", "Amara", "Lukas", "Sofia", "Kenji", "Nadia", "Tomas", "Leila", "Oscar",
    "Ingrid", "Rafael", "Yuki", "Daniel", "Fatima", "Hugo", "Chloe", "Arjun", "Elena", "Kwame",
    "Marta", "Diego", "Hana", "Felix", "Zara", "Andrei", "Lucia", "Samir", "Greta", "Tariq",
    "Noemi", "Viktor", "Aisha", "Bruno", "Clara", "Emeka", "Freya", "Gustavo", "Helena", "Jonas",
    "Keiko", "Lorenzo", "Mina", "Nikolai", "Paula", "Ravi", "Selma", "Theo",
)

LAST_NAMES = (
    "Nair", "Fischer", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Novak", "Castillo", "Brennan",
    "Kowalski", "Mensah", "Santos", "Varga", "Yilmaz", "Dubois", "Petrov", "Ahmed", "Laine", "Costa",
    "Becker", "Ramirez", "Sato", "Horvat", "Quinn", "Abara", "Janssen", "Kaur", "Morales", "Nilsen",
    "Ortega", "Park", "Rossi", "Svensson", "Torres", "Usman", "Weber", "Zhou", "Bianchi", "Carver",
    "Delgado", "Eriksen", "Farah", "Gallo", "Hayes", "Ivanova", "Keller", "Lopez",
)

ROLES = (
    "Head of Logistics", "Chief Data Officer", "Lead Designer", "Head of Sales", "Finance Director",
    "Senior Engineer", "Product Manager", "Head of Research", "Legal Counsel", "Support Lead",
    "Head of Marketing", "Operations Manager", "Security Lead", "Chief Architect", "Data Scientist",
    "HR Director", "Head of Training", "Field Engineer", "Sound Engineer", "Brand Manager",
    "Lab Manager", "Chief of Staff", "Community Manager", "Head of Quality",
)

CITIES = (
    "Oslo", "Lisbon", "Nairobi", "Osaka", "Denver", "Quito", "Hanoi", "Perth", "Cairo", "Dublin",
    "Seoul", "Lima", "Accra", "Porto", "Riga", "Tbilisi", "Auckland", "Montreal", "Chicago", "Istanbul",
    "Mumbai", "Jakarta", "Manila", "Bogota", "Santiago", "Helsinki", "Prague", "Vienna", "Zurich", "Warsaw",
    "Budapest", "Athens", "Marrakesh", "Lagos", "Kigali", "Dakar", "Tunis", "Doha", "Dubai", "Muscat",
    "Karachi", "Dhaka", "Colombo", "Kathmandu", "Bangkok", "Singapore", "Taipei", "Busan", "Sapporo",
    "Kyoto", "Brisbane", "Adelaide", "Hobart", "Wellington", "Vancouver", "Calgary", "Seattle", "Boston",
    "Austin", "Phoenix", "Havana", "Montevideo", "La Paz", "Reykjavik", "Edinburgh", "Cardiff", "Bristol",
    "Lyon", "Marseille", "Seville", "Valencia", "Naples", "Turin", "Munich", "Hamburg", "Gdansk", "Tallinn",
)

TRIP_PURPOSES = ("Sales", "Research", "Training", "Press", "Partner", "Audit", "Hiring", "Field")

AIRLINE_CODES = ("AF", "BA", "LH", "DL", "EY", "QR", "NH", "JL", "AY", "TG", "GA", "ET", "MH", "HA")

HOTELS = (
    "Harbor View", "Linden", "Blue Heron", "Old Mill", "Kingsway", "Parkside", "Riverside", "Cedar Court",
    "Lantern", "Grand Meridian", "Seabird", "Northgate", "Copper Beech", "Fountain", "Marigold",
)

DIVISIONS = (
    "Copperleaf", "Northwind", "Bluestone", "Redwood", "Silverline", "Greenfield", "Ironbridge", "Westbrook",
    "Clearwater", "Stonegate", "Brightwell", "Fairhaven", "Oakridge", "Highmoor", "Lakeshore", "Ashford",
    "Elmstead", "Foxglove", "Goldcrest", "Hollowell",
)

DIVISION_KINDS = ("division", "region", "studio", "lab")

QUARTERS = ("Q1", "Q2", "Q3", "Q4")

WORKSHOP_SUBJECTS = (
    "Solar panel basics", "Watercolor portraits", "Sourdough baking", "Public speaking", "Knife skills",
    "Bike repair", "Night photography", "Pottery wheel", "First aid", "Spreadsheet tricks", "Beekeeping",
    "Woodcarving", "Composting", "Podcast editing", "Rock climbing", "Calligraphy", "Home wiring",
    "Salsa dancing", "Urban sketching", "Cheese making", "Map reading", "Chess openings", "Kite building",
    "Resume writing", "Bread scoring", "Tea tasting", "Bird watching", "Film scanning", "Guitar setup",
    "Container gardening",
)

WORKSHOP_LEVELS = ("", "Advanced ")

SERVICE_PREFIXES = ("Cloud", "Data", "Task", "Mail", "Photo", "Note", "Team", "Code", "Budget", "Route", "Shift", "Stock")

SERVICE_SUFFIXES = ("Desk", "Nest", "Flow", "Pilot", "Hub", "Box", "Forge", "Sync", "Base", "Track")

DISH_FLAVOURS = ("Lemon", "Smoked", "Spiced", "Roasted", "Garlic", "Herb", "Chili", "Honey", "Miso", "Ginger")

DISHES = (
    "risotto", "ramen", "tacos", "curry", "pancakes", "gnocchi", "paella", "dumplings", "falafel", "lasagna",
    "chowder", "flatbread",
)

CHEFS = ("Chef Alvarez", "Chef Moreno", "Chef Ito", "Chef Duarte", "Chef Okoye", "Chef Lund", "Chef Bassi")

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# Letters for codes, gates and rooms: none that OCR confuses with a digit (O, I) or whose capital
# looks like its lower case (C, K, O, P, S, U, V, W, X, Z).
CODE_LETTERS = "ABDEFGHJLMNQRTY"

BALL_COLOURS = {
    "red": (220, 40, 40),
    "green": (40, 190, 70),
    "blue": (50, 100, 235),
    "yellow": (240, 220, 40),
    "orange": (245, 140, 30),
    "purple": (150, 60, 200),
    "white": (245, 245, 245),
    "pink": (245, 120, 190),
}

# Dark backgrounds behind white text; neighbouring slides never share one, so every slide change is
# a visible cut.
SLIDE_BACKGROUNDS = (
    "#1b2a4a", "#3a1f3d", "#143d33", "#4a2c17", "#23313a", "#3b3b12", "#2e1a5c", "#0f3a4a",
)

MOTION_BACKGROUND = "#5a5f66"
