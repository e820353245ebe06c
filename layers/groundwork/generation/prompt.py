"""The chat prompt every model provider sends: numbered sources, and the conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.text.language_names import NAMES

if TYPE_CHECKING:
    from groundwork.domain.cards import Card
    from groundwork.generation.base import GenerationRequest

INSTRUCTIONS = """\
You answer questions using only the numbered sources below.
After each sentence, cite the sources that support it with their numbers in square brackets,
for example [1] or [2][3]. Cite only sources that say what the sentence says.
If the sources do not contain the answer, say that you could not find it in the documents.
Answer concisely."""

NO_SOURCES = "There are no sources for this question: say that you could not find an answer."


def chat_messages(request: GenerationRequest) -> list[dict[str, str]]:
    """System instructions with the sources, then the conversation as role/content messages.

    The application's own system messages follow ours, so it can shape the tone; the
    sources and citation rules come first.
    """
    system = [INSTRUCTIONS]
    if request.language:
        system.append(language_instruction(request.language))
    system.append(
        "Sources:\n\n" + "\n\n".join(_source(n, card) for n, card in enumerate(request.passages, 1))
        if request.passages
        else NO_SOURCES
    )
    system += [t.content for t in request.history if t.role == "system" and t.content]
    messages = [{"role": "system", "content": "\n\n".join(system)}]
    messages += [
        {"role": t.role, "content": t.content}
        for t in request.history
        if t.role != "system" and t.content
    ]
    messages.append({"role": "user", "content": request.question})
    return messages


def language_instruction(code: str) -> str:
    """Sources may be in another language than the answer: the answer follows the request."""
    name = NAMES.get(code)
    language = (
        f"{name} (ISO 639-1 {code!r})" if name else f"the language whose ISO 639-1 code is {code!r}"
    )
    return (
        f"Write the answer in {language}, even when the sources are in another language: "
        "translate what they say faithfully, and keep citing them."
    )


def _source(number: int, card: Card) -> str:
    label = " — ".join(part for part in (card.title, card.heading) if part)
    return f"[{number}] {label}\n{card.text}" if label else f"[{number}]\n{card.text}"
