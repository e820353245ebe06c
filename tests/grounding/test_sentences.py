"""Sentence segmentation on real text: the spans claims and evidence windows are made of."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundwork.text.sentences import split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Smith arrived. He left.", ["Dr. Smith arrived.", "He left."]),
        ("Pi is 3.14 roughly. Yes.", ["Pi is 3.14 roughly.", "Yes."]),
        ("See example.com for more. Then stop.", ["See example.com for more.", "Then stop."]),
        (
            "Visit https://example.org/a.b?x=1. Then go.",
            ["Visit https://example.org/a.b?x=1.", "Then go."],
        ),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ('"Stop." she said. Fine.', ['"Stop." she said.', "Fine."]),
        ("J. R. R. Tolkien wrote it. True.", ["J. R. R. Tolkien wrote it.", "True."]),
        ("Wait... what happened? Nothing.", ["Wait... what happened?", "Nothing."]),
        ("The U.S. economy grew. It did.", ["The U.S. economy grew.", "It did."]),
        (
            "The case was Brown v. Board of Education. It ended segregation.",
            ["The case was Brown v. Board of Education.", "It ended segregation."],
        ),
        ("Das ist z.B. gut. Und so.", ["Das ist z.B. gut.", "Und so."]),
        ("東京は首都です。大阪は都市です。", ["東京は首都です。", "大阪は都市です。"]),
        ("这是第一句。这是第二句！对吗？", ["这是第一句。", "这是第二句！", "对吗？"]),
        ("Intro:\n- first item\n- second item", ["Intro:", "- first item", "- second item"]),
        ("1. First step\n2. Second step. Done.", ["1. First step", "2. Second step.", "Done."]),
        ("# Heading\nBody text here.", ["# Heading", "Body text here."]),
        ("One paragraph\n\nAnother paragraph", ["One paragraph", "Another paragraph"]),
        ("A line that wraps\nonto the next line.", ["A line that wraps\nonto the next line."]),
        ("¿Dónde está? Aquí está.", ["¿Dónde está?", "Aquí está."]),
        (
            "It is not possible (1920; see Note, p. 48), owing to the size. Next.",
            ["It is not possible (1920; see Note, p. 48), owing to the size.", "Next."],
        ),
        (
            "As amended [29 U.S.C. 201 et seq.] by Pub. L. 95-151, 91 Stat. 1245. Done.",
            ["As amended [29 U.S.C. 201 et seq.] by Pub. L. 95-151, 91 Stat. 1245.", "Done."],
        ),
        (
            "The precepts are: 1. To hear Mass. 2. To fast on the days appointed.",
            ["The precepts are:", "1. To hear Mass.", "2. To fast on the days appointed."],
        ),
        (
            "Article. IV. Section 1. Full Faith shall be given. Section 2. The Citizens.",
            ["Article. IV. Section 1. Full Faith shall be given.", "Section 2. The Citizens."],
        ),
        (
            "It shall extend: First. To all cases. Second. To treaties.",
            ["It shall extend:", "First. To all cases.", "Second. To treaties."],
        ),
        ("I counted to 3. Then I stopped.", ["I counted to 3.", "Then I stopped."]),
        ("Он пришёл. Она ушла.", ["Он пришёл.", "Она ушла."]),
    ],
)
def test_given_real_text_when_split_then_sentences_fall_where_a_reader_expects(
    text: str, expected: list[str]
) -> None:
    assert [span.text for span in split_sentences(text)] == expected


@given(st.text())
def test_given_any_text_when_split_then_spans_are_ordered_trimmed_slices(text: str) -> None:
    previous_end = 0
    for span in split_sentences(text):
        assert text[span.start : span.end] == span.text
        assert span.text == span.text.strip()
        assert span.text
        assert previous_end <= span.start
        previous_end = span.end
