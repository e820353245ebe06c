"""Migrates an index file written before cards knew their language.

The ``language`` column is added and filled in one transaction: each card keeps the language
its payload names, and the others get what ingest would give them today (their source's
cards read together, see ``ingest.language``). A process killed midway leaves the file as it
was, and the next open migrates it again; a second process that opens the file meanwhile
waits for the lock and finds the column there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.sqlite_transaction import committed

if TYPE_CHECKING:
    import sqlite3


def add_language_column(db: sqlite3.Connection) -> None:
    from groundwork.domain.cards import Card
    from groundwork.ingest.document import Document, Passage
    from groundwork.ingest.language import card_languages

    with committed(db):
        if "language" in {row[1] for row in db.execute("PRAGMA table_info(cards)")}:
            return
        db.execute("ALTER TABLE cards ADD COLUMN language TEXT")
        sources = [row[0] for row in db.execute("SELECT DISTINCT source_id FROM cards")]
        for source in sources:
            rows = db.execute(
                "SELECT rowid, payload FROM cards WHERE source_id = ? ORDER BY rowid", (source,)
            ).fetchall()
            cards = [Card.model_validate_json(payload) for _, payload in rows]
            document = Document(passages=[Passage(c.text, language=c.language) for c in cards])
            updates = []
            for (rowid, _), card, language in zip(
                rows, cards, card_languages(document), strict=True
            ):
                card.language = language
                updates.append((language, card.model_dump_json(), rowid))
            db.executemany("UPDATE cards SET language = ?, payload = ? WHERE rowid = ?", updates)
