"""How a question asks, in English, Italian, Portuguese, Spanish, German and French: for
something to write (code), or for yes or no; and the words that say no, or permit or oblige, in
those languages (a yes or no is often said with one).

An English question asks for yes or no when it opens with an auxiliary verb ("Can I…", "Does
it…"). The other five ask so without one ("Posso avere due account?", "Un catholique peut-il
épouser…?", "Darf ich…?"): a question in one of them asks for yes or no when no asking word
("chi", "quanto", "por qué", "wie", "pourquoi"…) opens it or one of its clauses, follows a
preposition ("per quanto tempo") or comes second ("Der wievielte Papst…"), and when it opens
"Est-ce que…". The question's language is the detected one; a question in any other language is
not read as asking for yes or no.
"""

from __future__ import annotations

import itertools
import re

_HOW_TO = re.compile(
    r"\bhow (?:do|can|could|should|would|will|does) (?:i|you|we|one|my)\b|\bhow to\b"
    r"|\bwhat(?:'s| is| are) the (?:syntax|code|command|way to)\b"
    r"|\b(?:which|what) (?:option|argument|parameter|flag|keyword|setting|method|function|"
    r"class|attribute|property|exception|command|variable)s?\b"
    r"|\b(?:show me|an example|example of|write)\b"
    # "Come faccio…", "Cómo…", "Wie schalte ich…", "Comment…"; not "wie viele", "wie lange"
    # (a quantity) nor "come mai" (why).
    r"|^\W*(?:come(?! mai\b)|como|cómo|comment|in che modo|de que (?:forma|maneira)"
    r"|de qué (?:forma|manera)|de quelle manière"
    r"|wie(?! (?:viele?n?|lange|oft|alt|weit|groß|gross|hoch|schnell|spät|teuer)\b))\b"
    r"|\b(?:quale?|quali|qual|quais|qué|cuál(?:es)?|welche[mnrs]?|quel(?:le)?s?) (?:opzione|"
    r"argomento|parametro|comando|metodo|funzione|classe|attributo|eccezione|variabile|opção|"
    r"opções|argumento|parâmetro|método|função|exceção|opción|opciones|parámetro|función|clase|"
    r"excepción|option|argument|parameter|befehl|methode|funktion|klasse|ausnahme|paramètre|"
    r"commande|méthode|fonction|exception)s?\b",
    re.IGNORECASE,
)
_YES_NO_EN = re.compile(
    r"^\W*(?:\w+[,:]\s+)?(?:am|is|are|was|were|do|does|did|can|could|may|might|must|shall|should"
    r"|will|would|has|have|had)\b",
    re.IGNORECASE,
)
#: The asking words of the five other languages, lower-cased.
_ASKING_WORDS = frozenset(
    """chi che cosa quale quali qual quanto quanta quanti quante dove quando come perché perchè
    quem que quê qual quais quanto quanta quantos quantas onde aonde quando como porque
    quién quiénes qué cuál cuáles cuánto cuánta cuántos cuántas dónde adónde cuándo cómo
    wer wen wem wessen was wann wo wohin woher warum wieso weshalb wie welche welcher welches
    welchen welchem wievielte wievielten wofür womit worüber wozu wodurch woran worauf wovon
    qu qui quoi quel quelle quels quelles lequel laquelle où quand comment combien
    pourquoi""".split()
)
#: The five languages' prepositions after which an asking word still asks ("per quanto tempo",
#: "com quanta", "à qui"); :mod:`groundwork.answer.answer_type` reads the kind asked after them.
PREPOSITIONS = frozenset(
    """a da di per con su fino ogni em para por com desde até en de hasta an bei mit seit bis ab
    für von zu aus nach à par pour avec depuis""".split()
)
#: Where a yes/no question would have its asking word: after those, and after these too
#: ("according to" among them, and the elided "jusqu'" and "d'").
_ASKING_AFTER = PREPOSITIONS | frozenset("ad in o secondo segundo según selon jusqu d".split())
_LANGUAGES = frozenset({"it", "pt", "es", "de", "fr"})
_EST_CE_QUE = re.compile(r"^\W*est-ce qu", re.IGNORECASE)
_CLAUSES = re.compile(r"[,;:¿¡]")
_WORD = re.compile(r"\w+")

NEGATIONS = frozenset(
    """not no never nor none neither cannot nothing non mai nessuno niente nulla não nunca nem
    nenhum nenhuma nada ninguno ninguna tampoco nicht kein keine keinen keiner keines nie niemals
    nichts pas jamais aucun aucune rien""".split()
)
#: Words that permit or oblige, or restrict ("only"): a yes or no is often said with one.
MODALS = frozenset(
    """may must shall can cannot might required require requires allowed permitted prohibited
    forbidden only può possono deve devono puoi devi pode podem devem puede pueden debe deben
    darf dürfen muss müssen kann können soll sollen peut peuvent doit doivent nur soltanto
    solamente somente apenas seulement""".split()
)


def how_to(question: str) -> bool:
    """The question asks how to write something: its answer may be code."""
    return _HOW_TO.search(question) is not None


def yes_no(question: str, language: str | None) -> bool:
    """The question, in ``language`` (None: unknown, read as English), asks for yes or no."""
    if language in (None, "en"):
        return _YES_NO_EN.match(question) is not None
    if language not in _LANGUAGES:
        return False
    if _EST_CE_QUE.match(question):
        return True
    return not any(w in _ASKING_WORDS for w in _asking_places(question))


def negates(said: set[str], negations: frozenset[str] = NEGATIONS) -> bool:
    """Lower-cased words that say no: one of ``negations``, or an English "…n't"."""
    return bool(said & negations) or any(w.endswith("n't") for w in said)


def _asking_places(question: str) -> list[str]:
    """The question's words where an asking word would ask: the first of each clause, the one
    after a preposition, and the question's second ("Der wievielte…", "O que…")."""
    lowered = question.lower().replace("'", " ").replace("’", " ")
    found = _WORD.findall(lowered)[1:2]
    for clause in _CLAUSES.split(lowered):
        words = _WORD.findall(clause)
        found += words[:1]
        found += [w for before, w in itertools.pairwise(words) if before in _ASKING_AFTER]
    return found
