"""What kind of answer a question asks for, and whether a sentence has one, in English,
Italian, Portuguese, Spanish, German and French.

"When did…", "In what year…", "Quando…", "Wann…" ask for a date; "How many…", "What
percentage…", "Which version…", "Quanti…", "Cuánto…", "Wie viele…", "Combien…" for a number;
"Who…", "By whom…", "Chi…", "Quem…", "Wer…", "Qui…" for a name; "Where…", "Dove…", "Onde…",
"Wo…", "Où…" for a place. A sentence without a date (a year, a century, a month, a weekday, or a
time counted from something: "within 3 days", "one month after", "entro 30 giorni"), a number
(digits or a number word, "seventy", "twice", "dreißig"), a capitalized word the question lacks,
or for a place one of those or a name in code or a link (``request.state``, a repository)
cannot be that answer. Only the question's asking word counts, at its start, after a comma or a
preposition: the "who" of "What must he do who has…", the "when" of "When violence is used,
what…" and the "how much" of "no matter how much…" ask for nothing, and "Where does … come
from?" ("Woher…", "D'où…") asks for an origin, not a place. Any other question, and one in a
language other than these six, asks for no particular kind. The number words of the other
languages leave out those that are also words of another ("due", "dos", "sei", "neuf") and the
articles ("un", "ein").
"""

from __future__ import annotations

import re
from typing import Literal

from groundwork.answer.asking import PREPOSITIONS
from groundwork.text.terms import STOPWORDS

Kind = Literal["date", "number", "name", "place"]

# The asking word opens the question or a clause, or follows a preposition ("by whom").
_LEAD = (
    r"(?:^|[,;:¿¡]\s*|\b(?:by|to|of|for|with|from|in|on|at|until|since|"
    + "|".join(sorted(PREPOSITIONS))
    + r")\s+|\b(?:jusqu|d)'\s*)"
)
_AUXILIARY = r"(?:did|was|were|is|are|does|do|had|has|have|will|would|could|can|should|might)"
_ASKS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            rf"\b(?:what|which) (?:year|century|decade|date|day|month|era)\b"
            rf"|{_LEAD}when {_AUXILIARY}\b"
            rf"|{_LEAD}(?:che|quale?|qual|que|qué|cuál|welche[mnrs]?|quel(?:le)?s?) (?:anno|secolo"
            r"|data|giorno|mese|ano|século|dia|mês|año|siglo|fecha|día|mes|jahr|jahrhundert|datum"
            r"|tag|monat|année|an|siècle|date|jour|mois)\b"
            rf"|{_LEAD}(?:quando|cuándo|quand)\b|\bwann\b"
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow (?:many|much|long|old|far|large|big|high|tall|often|fast|deep|wide|heavy)\b"
            r"|\bwhat (?:percentage|percent|proportion|number|amount|fraction)\b"
            r"|\bwhat (?:is|was|were) the population\b"
            # "Which Python version…", "What version of…": a version is a number.
            r"|\b(?:what|which) (?:\w+ )?(?:version|release)s?\b"
            rf"|{_LEAD}(?:quant[oie]|quant[oa]s|cuant[oa]s?)\b|\bcuánt[oa]s?\b|\bcombien\b"
            # Not "quanta" after an English preposition: "light quanta".
            r"|(?:^|\b(?:per|di|da|com|em|por|con)\s+)quanta\b"
            r"|\bwie (?:viele?n?|viel|lange|oft|alt|weit|groß|gross|hoch|schnell|tief|breit|schwer"
            r"|teuer)\b|\bwievielt"
            rf"|{_LEAD}(?:che|quale?|qual|qué|cuál|welche[mnrs]?|quel(?:le)?s?)(?: \w+){{0,2}} "
            r"(?:età|idade|edad|alter|âge|percentuale|porcentagem|porcentaje|prozentsatz|pourcentage"
            r"|importo|quantia|cantidad|betrag|montant"
            r"|versione|versão|versión|velocità|velocidade|velocidad|geschwindigkeit|vitesse)\b"
        ),
    ),
    (
        "name",
        re.compile(
            rf"{_LEAD}(?:who|whom|whose|chi|quem|quién(?:es)?|wer|wen|wem|wessen)\b"
            # French "qui" after a comma opens a relative clause, not a question.
            r"|(?:^|\b(?:à|de|par|pour|avec)\s+|\bd'\s*)qui\b"
        ),
    ),
    ("place", re.compile(rf"{_LEAD}(?:where|dove|onde|aonde|dónde|adónde|wo|wohin|où)\b")),
)
# Words that ask nothing: a concession ("no matter how much energy"), an origin ("where does
# the name come from?" is answered by a story, not a place).
_NOT_ASKING = re.compile(
    r"\b(?:no matter|non importa|no importa|não importa|egal|peu importe)\s+(?:how|what|when"
    r"|where|who|quant\w*|cuánt\w*|quando|cuándo|dove|dónde|onde|chi|quién|quem|wie|wann|wo|wer"
    r"|combien|quand|où|qui)\b|\bwhere\b(?=.*\bcome from\b)"
    r"|\b(?:woher|d'où|da dove|di dove|de d[oó]nde|de onde)\b"
)
_MONTHS = "January February March April May June July August September October November December"
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
# Month and day names capitalized: "may" and "march" are also verbs.
# Months are written lower-case in Italian, Portuguese, Spanish and French ("Rio de Janeiro" and
# the planet Mars are not months), capitalized in German; French "mai" is Italian "never".
_FOREIGN_MONTHS = """gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre
    dicembre janeiro fevereiro março abril maio junho julho setembro outubro dezembro enero
    febrero mayo junio julio septiembre octubre diciembre janvier février mars avril juin juillet
    août septembre octobre décembre Januar Februar März Juni Juli Oktober Dezember secolo secoli
    século séculos siglo siglos Jahrhundert Jahrhunderts siècle siècles""".split()
_DATE = re.compile(
    r"\b(?:1\d{3}|20\d{2})s?\b|\b[Cc]entur(?:y|ies)\b|\b[Dd]ecades?\b|\b(?:BC|AD|BCE|CE)\b"
    rf"|\b(?:{'|'.join(_MONTHS.split())}|Mai)\b|\b(?:{'|'.join(_DAYS.split())})s?\b"
    rf"|\b(?:{'|'.join(_FOREIGN_MONTHS)})\b"
)
_NUMBER_WORDS = """one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred thousand million billion trillion dozen half percent once twice
    thrice""".split()
_NUMBER_WORDS += """tre quattro cinque sette otto nove dieci undici dodici venti trenta quaranta
    cinquanta sessanta settanta ottanta novanta cento mille milione milioni miliardo metà dois
    duas três quatro cinco seis sete oito dez onze doze vinte trinta quarenta cinquenta sessenta
    setenta oitenta noventa cem mil milhão milhões metade tres cuatro siete ocho nueve diez doce
    quince veinte treinta cuarenta cincuenta sesenta ochenta cien ciento millón millones mitad
    zwei drei vier fünf sechs sieben acht neun zehn zwölf zwanzig dreißig vierzig fünfzig
    sechzig siebzig achtzig neunzig hundert tausend hälfte prozent deux trois quatre cinq sept
    huit dix douze quinze vingt trente quarante cinquante soixante cent moitié""".split()
_NUMBER = re.compile(rf"\d|\b(?:{'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)
# A time counted from something answers "when" as well as a date does.
_SPAN = re.compile(
    rf"\b(?:\d+|{'|'.join(_NUMBER_WORDS)})(?:\s|-)+(?:hours?|days?|weeks?|months?|years?|ore"
    r"|giorni|settimane|mesi|anni|horas|dias|semanas|meses|anos|días|años|stunden|tagen?|wochen"
    r"|monaten?|jahren?|heures|jours|semaines|mois|ans|années)\b",
    re.IGNORECASE,
)
_CODE_OR_LINK = re.compile(r"`[^`]+`|\]\(|https?://")
_CAPITALIZED = re.compile(r"\b[A-Z][\w'’-]*")
_WORD = re.compile(r"\w+")


def expected(question: str) -> Kind | None:
    """The kind of answer ``question`` asks for, if a particular one."""
    asked = _NOT_ASKING.sub(" ", question.lower().replace("’", "'").strip())
    return next((kind for kind, pattern in _ASKS if pattern.search(asked)), None)


def fits(kind: Kind | None, question: str, sentence: str) -> bool:
    """Whether ``sentence`` has an answer of the ``kind`` that ``question`` asks for."""
    if kind == "date":
        return _DATE.search(sentence) is not None or _SPAN.search(sentence) is not None
    if kind == "number":
        return _NUMBER.search(sentence) is not None
    if kind == "place" and _CODE_OR_LINK.search(sentence):
        return True
    if kind in ("name", "place"):
        asked = {w.lower() for w in _WORD.findall(question)}
        return any(
            w.lower() not in asked and w.lower() not in STOPWORDS
            for w in _CAPITALIZED.findall(sentence)
        )
    return True
