"""How a question asks, in the six languages of the benchmark: for code, or for yes or no."""

from __future__ import annotations

import pytest

from groundwork.answer.asking import how_to, negates, yes_no


@pytest.mark.parametrize(
    ("question", "language", "asks_yes_or_no"),
    [
        ("Can I have two free accounts?", "en", True),
        ("Which methods must an object implement?", "en", False),
        ("Posso avere due account gratuiti su GitHub?", "it", True),
        ("Il presidente degli Stati Uniti può concedere la grazia?", "it", True),
        ("Secondo Madison, qual è la fonte più comune delle fazioni?", "it", False),
        ("Per quanto tempo resta salvato il cookie?", "it", False),
        ("Primos de segundo grau podem se casar na Igreja Católica?", "pt", True),
        ("Hamilton achava que a Constituição já servia de declaração?", "pt", True),
        ("O que os católicos querem dizer com a Assunção?", "pt", False),
        ("Para onde foram as expedições?", "pt", False),
        ("Según la relatividad general, ¿el universo es finito?", "es", True),
        ("Si me voy de la empresa, ¿a qué hora me cortan el acceso?", "es", False),
        ("Darf ich mit GitHub Actions Kryptowährungen schürfen?", "de", True),
        ("Was meint Einstein mit einer Bezugsmolluske?", "de", False),  # "was" is not "was"
        ("Der wievielte Papst war Pius XI.?", "de", False),
        ("Un catholique peut-il épouser une personne d'une autre religion ?", "fr", True),
        ("Est-ce que le contenu est rétabli ?", "fr", True),
        ("Jusqu'où une république peut-elle s'étendre ?", "fr", False),
        ("Можно ли иметь два аккаунта?", "ru", False),  # not read in other languages
    ],
)
def test_given_a_question_in_its_language_then_it_asks_for_yes_or_no_when_no_asking_word_opens_it(
    question: str, language: str, asks_yes_or_no: bool
) -> None:
    assert yes_no(question, language) is asks_yes_or_no


@pytest.mark.parametrize(
    ("question", "asks_how"),
    [
        ("How do I make httpx follow redirects?", True),
        ("Come faccio a far seguire automaticamente i redirect a httpx?", True),
        ("Como desativo a verificação do certificado SSL no httpx?", True),
        ("¿Cómo restrinjo un endpoint a usuarios autenticados?", True),
        ("¿Qué excepción lanza httpx si no consigue conectar a tiempo?", True),
        ("Wie schalte ich HTTP/2 in httpx ein?", True),
        ("Comment faire une authentification Digest avec httpx ?", True),
        ("Wie lange bleibt ein Sitzungscookie auf meinem Gerät?", False),  # a quantity
        ("Wie viel Geld bekomme ich für den Arbeitsplatz?", False),
        ("Come mai la luce devia?", False),  # why
        ("Does HTTPX follow redirects by default?", False),
    ],
)
def test_given_a_question_then_it_asks_how_to_write_something_only_when_it_says_so(
    question: str, asks_how: bool
) -> None:
    assert how_to(question) is asks_how


@pytest.mark.parametrize(
    ("sentence", "says_no"),
    [
        ("it does not", True),
        ("it isn't", True),
        ("la luce non dipende dal moto", True),
        ("o GitHub não avisa", True),
        ("das ist nicht erlaubt", True),
        ("ce n'est jamais permis", True),
        ("la luce dipende dal moto", False),
    ],
)
def test_given_a_sentence_then_it_says_no_in_any_of_the_six_languages(
    sentence: str, says_no: bool
) -> None:
    assert negates(set(sentence.lower().split())) is says_no
