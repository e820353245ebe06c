"""The answerability check's signals for questions written to look answerable when they are not:
a negation added, a number, a superlative or a name that the documents do not have, a word the
sentence contradicts."""

from __future__ import annotations

from groundwork.answer.answerability import answers, features, probability
from groundwork.answer.relevance import Candidate, Evidence, gather
from groundwork.domain.cards import Card
from groundwork.embeddings.factory import get_embedder
from groundwork.text.terms import terms, words

NEGATED, NUMBER, RANKING, NAMES, CONTRADICTED = 3, 4, 5, 6, 7

PARLIAMENT = [
    Card(id="p-0", collection="k", source_id="s", url="k#0",
         text="The Presiding Officer can reduce speaking time if many members wish to speak. "
         "Members of the Parliament first met in Edinburgh in 1999."),
    Card(id="p-1", collection="k", source_id="s", url="k#1",
         text="The Parliament sits on Tuesdays, Wednesdays and Thursdays from early January "
         "to late June. Debates are open to the public."),
]  # fmt: skip


def evidence(question: str, *sentences: tuple[str, float]) -> Evidence:
    """The evidence as gather would build it for these (sentence, similarity) candidates."""
    wanted = set(terms(question))
    candidates = [
        Candidate(0, i, text, similarity, len(wanted & set(terms(text))) / len(wanted),
                  frozenset(set(terms(text)) - wanted))
        for i, (text, similarity) in enumerate(sentences)
    ]  # fmt: skip
    passage = " ".join(text for text, _ in sentences)
    return Evidence(candidates, 0.5, question=question, passage_words=(frozenset(words(passage)),))


def test_given_a_negated_question_and_an_affirming_sentence_then_the_negation_counts() -> None:
    affirmed = evidence("What does Article 12 not allow?", ("Article 12 allows mergers.", 0.7))
    negated = evidence("What does Article 12 not allow?", ("Article 12 does not allow it.", 0.7))
    contracted = evidence("What doesn’t Article 12 allow?", ("Article 12 allows mergers.", 0.7))

    assert features(affirmed)[NEGATED] == 1.0
    assert features(negated)[NEGATED] == 0.0
    assert features(contracted)[NEGATED] == 1.0


def test_given_a_number_or_superlative_the_sentence_lacks_then_each_counts() -> None:
    other_year = evidence(
        "Who proved it in 1961 at the latest?", ("Cook proved it in 1971 at the earliest.", 0.8)
    )
    same_year = evidence("Who proved it first in 1971?", ("Cook first proved it in 1971.", 0.8))

    assert features(other_year)[NUMBER] == 1.0
    assert features(other_year)[RANKING] == 1.0
    assert features(same_year)[NUMBER] == 0.0
    assert features(same_year)[RANKING] == 0.0


def test_given_a_word_whose_opposite_the_sentence_says_then_it_is_contradicted() -> None:
    unsolved = ("An important unsolved problem is whether graph isomorphism is in P.", 0.8)
    tropical = ("A tropical climate was said to produce lazy people.", 0.7)
    private = ("Private schools may charge fees.", 0.7)

    assert features(evidence("What is an important solved problem?", unsolved))[CONTRADICTED] == 1
    assert features(evidence("What does a non-tropical climate produce?", tropical))[CONTRADICTED]
    assert features(evidence("What may public schools charge?", private))[CONTRADICTED] == 1.0
    assert features(evidence("What is an important unsolved problem?", unsolved))[CONTRADICTED] == 0
    # "to" and "into" are no pair: a prefix goes on a word of four letters or more.
    into = ("The company was merged into the Crown.", 0.7)
    assert features(evidence("What happened to the company?", into))[CONTRADICTED] == 0.0


def test_given_an_opposite_the_sentence_does_not_mean_then_nothing_is_contradicted() -> None:
    def contradicted(question: str, sentence: str) -> float:
        return features(evidence(question, (sentence, 0.8)))[CONTRADICTED]

    # The same word, written apart or inflected.
    assert contradicted("Why should protest be non violent?", "It must be non-violent.") == 0
    assert contradicted("How do I protest in a non violent way?", "Protest is nonviolent.") == 0
    assert (
        contradicted("What did he gain out of the defeat?", "The victory defeated his force.") == 0
    )
    # The sentence negates the root: "not equal" is "unequal".
    assert contradicted("What if P and NP are unequal?", "If P is not equal to NP, it holds.") == 0
    assert contradicted("What if P and NP are unequal?", "If P isn’t equal to NP, it holds.") == 0
    assert contradicted("What if P and NP are unequal?", "If P is equal to NP, it holds.") == 1
    # The question names both, offers a choice, or asks how much of the word holds.
    assert contradicted("Why is informal rule cheaper than formal rule?", "Formal rule costs.") == 0
    assert contradicted("Which is more costly, A or B?", "A is less costly than B.") == 0
    assert contradicted("How successful were the efforts?", "The efforts were unsuccessful.") == 0
    # "At least two" ranks nothing; a prefix that negates nothing ("improve", "discover").
    assert contradicted("Which is used in most textbooks?", "At least two textbooks use it.") == 0
    assert contradicted("How do I improve the speed?", "Tests prove the speed.") == 0
    assert contradicted("Who discovered the island?", "Snow covered the island.") == 0
    assert contradicted("Who mapped the uncovered island?", "Snow covered the island.") == 1


def test_given_a_yes_no_or_negated_question_then_the_opposite_may_answer_it() -> None:
    private = ("Only private schools may charge fees.", 0.7)
    leader = ("Mazowiecki became the first non-communist prime minister.", 0.8)

    assert features(evidence("May public schools charge fees?", private))[CONTRADICTED] == 0.0
    assert (
        features(evidence("Who was the first leader who wasn't communist?", leader))[CONTRADICTED]
        == 0.0
    )
    assert features(evidence("Who was the first communist leader?", leader))[CONTRADICTED] == 1


def test_given_names_no_passage_has_then_they_are_counted_up_to_two() -> None:
    question = "Did Alice Smith meet Bob Jones in Paris in 1900?"
    known = evidence(question, ("Alice met Bob in Paris.", 0.6))

    assert features(known)[NAMES] == 2.0  # Smith, Jones and 1900 are absent: at most 2
    assert features(evidence("Where did Alice meet Bob?", ("Alice met Bob.", 0.6)))[NAMES] == 0


def test_given_the_passages_when_asked_what_they_say_then_it_is_answerable() -> None:
    found = gather("When did the Parliament first meet in Edinburgh?", PARLIAMENT, get_embedder())

    assert answers(probability(found))


def test_given_a_question_negating_what_the_passage_says_then_it_is_refused() -> None:
    found = gather(
        "When can the Presiding Officer not reduce speaking time?", PARLIAMENT, get_embedder()
    )

    assert features(found)[NEGATED] == 1.0
    assert not answers(probability(found))


def test_given_a_question_naming_what_no_passage_has_then_it_is_refused() -> None:
    found = gather(
        "When did the Parliament of Wales first meet in Cardiff?", PARLIAMENT, get_embedder()
    )

    assert features(found)[NAMES] == 2.0
    assert not answers(probability(found))


def test_given_numbers_in_the_passage_headings_then_they_are_not_missing() -> None:
    section = Card(
        id="c-8",
        collection="k",
        source_id="s",
        url="k#8",
        heading="Section 8",
        heading_path=["Article 1", "Section 8"],
        title="Constitution",
        text="The Congress shall have Power To lay and collect Taxes and Duties.",
    )

    found = gather("What does Article 1, Section 8 say about Taxes?", [section], get_embedder())
    unnamed = gather("What does Article 4, Section 8 say about Taxes?", [section], get_embedder())

    assert features(found)[NUMBER] == 0.0
    assert features(found)[NAMES] == 0.0
    assert features(unnamed)[NUMBER] == 1.0


def test_given_a_name_with_a_typographic_apostrophe_in_the_passage_then_it_is_not_absent() -> None:
    passages = [
        Card(id="b-0", collection="k", source_id="s", url="k#0",
             text="Flann O’Brien wrote The Third Policeman in 1940. It was published in 1967."),
    ]  # fmt: skip

    found = gather("When did Flann O'Brien write The Third Policeman?", passages, get_embedder())

    assert features(found)[NAMES] == 0.0


def test_given_the_author_of_a_section_named_in_the_question_then_the_name_is_not_absent() -> None:
    paper = Card(
        id="f-2", collection="k", source_id="s", url="k#2", author="Jay",
        heading_path=["FEDERALIST No. 2"], title="The Federalist Papers",
        text="Providence has been pleased to give this one connected country to one united "
        "people, descended from the same ancestors and speaking the same language.",
    )  # fmt: skip

    found = gather("What did Jay say the people had in common?", [paper], get_embedder())
    unsigned = gather(
        "What did Jay say the people had in common?",
        [paper.model_copy(update={"author": None})],
        get_embedder(),
    )

    assert features(found)[NAMES] == 0.0
    assert features(unsigned)[NAMES] == 1.0
