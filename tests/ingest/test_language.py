"""Cards know their language: declared by the file or the caller, else detected at ingest."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from groundwork.ingest.document import Document, Passage
from groundwork.ingest.language import card_languages, declared_language
from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage

if TYPE_CHECKING:
    from pathlib import Path

GERMAN = (
    "Die Taufe ist das Sakrament, das unseren Seelen das neue Leben der heiligmachenden "
    "Gnade schenkt, durch die wir Kinder Gottes und Erben des Himmels werden. Sie tilgt die "
    "Erbsünde und alle Sünden, die wir vor ihr begangen haben. Jeder kann im Notfall taufen."
)
ENGLISH = (
    "Baptism is the sacrament that gives our souls the new life of sanctifying grace, by "
    "which we become children of God and heirs of heaven. It takes away original sin and "
    "every sin committed before it. Anyone may baptize in case of necessity."
)


@pytest.mark.parametrize(
    ("value", "code"),
    [("de", "de"), ("DE-de", "de"), ("en_US", "en"), ("German", "de"), ("english", "en"),
     ("Klingon", None), ("", None), (None, None), ("deu", None)],
)  # fmt: skip
def test_given_a_declared_language_when_read_then_its_iso_639_1_code(
    value: str | None, code: str | None
) -> None:
    assert declared_language(value) == code


def test_given_passages_in_two_languages_when_detected_then_each_card_has_its_own() -> None:
    document = Document(passages=[Passage(GERMAN), Passage(ENGLISH), Passage("Taufe.")])

    # The short passage is too little text to judge: it takes the document's language.
    assert card_languages(document)[:2] == ["de", "en"]
    assert card_languages(Document(passages=[Passage(GERMAN), Passage("Baptism.")])) == [
        "de",
        "de",
    ]


def test_given_a_declared_language_when_detected_then_the_declaration_wins() -> None:
    document = Document(language="fr", passages=[Passage(GERMAN), Passage(ENGLISH, language="it")])

    assert card_languages(document) == ["fr", "it"]


def test_given_files_when_ingested_then_cards_carry_their_language(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "taufe.md").write_text(f"# Taufe\n\n{GERMAN}\n")
    (folder / "baptism.md").write_text(f"# Baptism\n\n{ENGLISH}\n")
    (folder / "declared.md").write_text(f"---\nlanguage: Spanish\n---\n# Bautismo\n\n{ENGLISH}\n")
    (folder / "gutenberg.txt").write_text(
        "Title: Katechismus\nLanguage: German\n\n*** START OF THE PROJECT GUTENBERG EBOOK X ***"
        f"\n\n{ENGLISH}\n\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\n"
    )
    settings = Settings(data_dir=tmp_path / "data", bootstrap_docs=False, retrieval="keyword")
    index = KeywordIndex(tmp_path / "index.sqlite3")

    report = Ingestor(index, get_storage(settings)).ingest(
        sorted(folder.iterdir()), collection="c", root=folder
    )

    assert report.failed == {}
    rows = index._db.execute("SELECT payload, language FROM cards").fetchall()
    languages = {
        payload.split('"title":"')[1].split('"')[0]: language for payload, language in rows
    }
    assert languages == {"Taufe": "de", "Baptism": "en", "Bautismo": "es", "Katechismus": "de"}
