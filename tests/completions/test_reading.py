"""Reading a passage: its units, code quoted as code for a how-to question, rejected sections
said as such, metadata blocks left out."""

from __future__ import annotations

from groundwork.answer.asking import how_to
from groundwork.answer.relevance import gather
from groundwork.answer.units import units
from groundwork.domain.cards import Card
from groundwork.embeddings.factory import get_embedder
from groundwork.evaluation.judge import first_sentence
from groundwork.generation.base import GenerationRequest
from groundwork.generation.extractive import ExtractiveComposer
from groundwork.ingest.markdown import parse_markdown

LIMITS = """You can control the connection pool size using the `limits` keyword argument.

- `max_keepalive_connections`, number of allowable keep-alive connections. (Defaults 20)
- `max_connections`, maximum number of allowable connections, or `None` for no limits.
(Default 100)

| Option | Meaning |
| --- | --- |
| `limits` | The pool's limits. |"""

REDIRECTS = """HTTPX will not follow redirects by default.

You can enable redirect handling with the `follow_redirects` parameter:

```pycon
>>> r = httpx.get('http://github.com/', follow_redirects=True)
>>> r.url
URL('https://github.com/')
```"""


def card(text: str, *headings: str, n: int = 0) -> Card:
    return Card(
        id=f"c{n}", collection="c", source_id="s", url=f"u#{n}", text=text, heading_path=[*headings]
    )


def answer(question: str, *cards: Card) -> str:
    passages = list(cards)
    composer = ExtractiveComposer()
    request = GenerationRequest(question=question, passages=passages)
    return "".join(composer.stream(request))


def test_given_a_list_and_a_table_then_each_item_and_row_is_a_unit_with_its_value() -> None:
    found = units(LIMITS)

    assert [u.kind for u in found] == ["sentence", "item", "item", "row", "row"]
    assert found[2].text == (
        "`max_connections`, maximum number of allowable connections, or `None` for no limits. "
        "(Default 100)"
    )
    assert found[4].text == "| `limits` | The pool's limits. |"


def test_given_a_code_block_then_it_keeps_its_line_breaks_and_knows_its_introduction() -> None:
    found = units(REDIRECTS)

    code = found[-1]
    assert code.kind == "code"
    assert code.text.startswith("```pycon\n>>> r = httpx.get(")
    assert code.text.endswith("\n```")
    assert code.intro is not None
    assert found[code.intro].text.endswith("the `follow_redirects` parameter:")


def test_given_a_metadata_block_then_it_is_not_prose() -> None:
    text = (
        "PEP: 343\nTitle: The with statement\nAuthor: Guido\nStatus: Final\n\nThe protocol is new."
    )

    assert [u.text for u in units(text)] == ["The protocol is new."]


def test_given_a_line_of_code_or_an_faq_answer_after_a_label_then_it_is_prose() -> None:
    """Given lines shaped like fields that say what the passage says (a value quoting code, an
    FAQ's one-letter label), when read, then they are units; a line of navigation is not."""
    text = (
        "Query parameters are exposed as an immutable multi-dict.\n\n"
        "For example: `request.query_params['search']`\n\n"
        "Q: How do I add my child?\n\n"
        "A: Use Rippling to trigger a Qualifying Life Event\n\n"
        "Next: The System of Co-ordinates"
    )

    assert [u.text for u in units(text)] == [
        "Query parameters are exposed as an immutable multi-dict.",
        "For example: `request.query_params['search']`",
        "Q: How do I add my child?",
        "A: Use Rippling to trigger a Qualifying Life Event",
    ]


def test_given_a_quote_then_its_units_are_its_text_without_the_markers() -> None:
    """Given a GitHub alert and a quoted list, when read, then each unit is what the page shows:
    the alert's kind as its title, no quote markers."""
    page = "# Travel\n\n> [!IMPORTANT]\n> Requests must be cheap.\n>\n> - Book economy class.\n"
    text = parse_markdown(page).passages[0].text

    assert [(u.kind, u.text) for u in units(text)] == [
        ("sentence", "Important: Requests must be cheap."),
        ("item", "Book economy class."),
    ]


def test_given_a_how_to_question_then_the_code_is_quoted_after_its_introduction() -> None:
    text = answer("How do I make httpx follow redirects?", card(REDIRECTS))

    assert text.startswith(
        "You can enable redirect handling with the `follow_redirects` parameter: [1]\n\n```pycon\n"
    ), text
    assert "follow_redirects=True" in first_sentence(text)


def test_given_a_question_that_asks_no_how_then_code_is_no_candidate_of_its_own() -> None:
    passages = [card(REDIRECTS)]
    evidence = gather("Does HTTPX follow redirects by default?", passages, get_embedder())

    assert not how_to("Does HTTPX follow redirects by default?")
    # The code is quoted only after the sentence that announces it, never on its own score.
    assert all(c.intro == units(REDIRECTS)[1].text for c in evidence.candidates if c.intro)
    assert evidence.candidates
    assert all(c.position != 2 for c in evidence.candidates)


def test_given_a_sentence_that_ends_in_a_colon_then_it_is_quoted_with_the_code_it_announces() -> (
    None
):
    colors = card(
        "ripgrep's colors can be changed.\n\n"
        "Make the line numbers yellow with the `--colors` flag, like so:\n\n"
        "```\nrg --colors line:fg:yellow foo\n```"
    )
    question = "Can ripgrep show line numbers in yellow?"

    text = answer(question, colors)

    assert not how_to(question)
    assert text.startswith(
        "Make the line numbers yellow with the `--colors` flag, like so: [1]\n\n```"
    )
    assert "rg --colors line:fg:yellow foo" in text


def test_given_a_rejected_section_then_its_idea_is_said_to_be_rejected() -> None:
    rejected = card(
        "Handling only some exceptions of a group could use a new except* clause written twice.",
        "Exception groups",
        "Rejected Ideas",
    )

    text = answer("How could some exceptions of a group be handled?", rejected)

    assert text.startswith(
        "The document lists this under “Rejected Ideas”, not as what it adopts: Handling only"
    ), text


def test_given_a_short_value_after_a_sentence_then_the_first_sentence_holds_it() -> None:
    said = "`max_connections`, or `None` for no limits. (Default 100) [1] It is the pool size. [2]"

    assert first_sentence(said) == "`max_connections`, or `None` for no limits. (Default 100)"


def test_given_japanese_then_each_sentence_is_a_unit_as_written() -> None:
    """Japanese and Chinese put no space between words or after a full stop: a sentence is
    one "word" between spaces, yet a unit of its own, and it is quoted as written."""
    japanese = "富士山は日本で一番高い山です。東京は首都です。本当？"
    text = f"{japanese}\n\n这是第一句话的内容。这是第二句！"

    assert [u.text for u in units(text)] == [
        "富士山は日本で一番高い山です。",
        "東京は首都です。本当？",  # two characters are no sentence of their own
        "这是第一句话的内容。",
        "这是第二句！",
    ]


def test_given_a_japanese_answer_then_its_first_sentence_is_one_sentence() -> None:
    said = "富士山は日本で一番高い山です。[1] 東京は首都です。[2]"

    assert first_sentence(said) == "富士山は日本で一番高い山です。"
