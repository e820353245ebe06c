"""The facts of the spec's reference behaviour, written from its description."""

from groundwork.grounding.model import Fact

# F0: Simple Wikipedia's Titanic summary.
TITANIC_F0 = Fact(
    "Titanic is a 1997 American romance and disaster movie. It was directed, written, and "
    "co-produced by James Cameron. The movie is about the 1912 sinking of the RMS Titanic. "
    "It stars Kate Winslet and Leonardo DiCaprio. The movie was released on December 19, 1997. "
    "It won 11 Academy Awards from 14 nominations.",
    {"title": "Titanic (1997 movie)", "author": "Simple Wikipedia"},
)
# F1: Rotten Tomatoes' blurb, with the HTML entity such pages carry.
TITANIC_F1 = Fact(
    "James Cameron&#39;s &quot;Titanic&quot; is an epic, action-packed romance set against the "
    "ill-fated maiden voyage of the R.M.S. Titanic; the pride and joy of the White Star Line "
    "and, at the time, the largest moving object ever built. She was the most luxurious liner "
    "of her era -- the &quot;ship of dreams&quot; -- which ultimately carried over 1,500 people "
    "to their death in the ice cold waters of the North Atlantic in the early hours of "
    "April 15, 1912.",
    {"author": "Rotten Tomatoes"},
)
TITANIC = [TITANIC_F0, TITANIC_F1]

GOOGLE = [
    Fact(
        "Google was founded in September 1998 by Larry Page and Sergey Brin while they were "
        "PhD students at Stanford University in California."
    )
]

TORONTO = [Fact("Toronto is the capital of Ontario", {"author": "Wikipedia"})]
