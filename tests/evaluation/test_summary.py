"""An evaluation's totals, its AUROC and its refusal curve, from judged outcomes."""

from groundwork.evaluation.questions import EvalQuestion
from groundwork.evaluation.run import Outcome
from groundwork.evaluation.summary import auroc, refusal_curve, totals


def outcome(answerable: bool, *, refused: bool, confidence: float, answers: bool | None) -> Outcome:
    question = EvalQuestion(
        id=f"q{confidence}", question="?", answerable=answerable, answers=("x",) if answers else ()
    )
    return Outcome(
        question=question,
        answer="" if refused else "x. [1]",
        refused=refused,
        confidence=confidence,
        first_sentence="" if refused else "x.",
        answers=answers if answerable else None,
        source_first=None,
        cited=() if refused else ("a.md",),
        cited_sentences=0 if refused else 1,
        supported_sentences=0 if refused else 1,
        words=0 if refused else 1,
        first_token_s=0.01 * confidence,
    )


def test_given_judged_outcomes_then_refusals_count_against_answering() -> None:
    outcomes = [
        outcome(True, refused=False, confidence=0.9, answers=True),
        outcome(True, refused=False, confidence=0.6, answers=False),
        outcome(True, refused=True, confidence=0.2, answers=False),
        outcome(False, refused=True, confidence=0.1, answers=None),
        outcome(False, refused=False, confidence=0.7, answers=None),
    ]

    figures = totals(outcomes)

    assert (figures.answerable, figures.absent) == (3, 2)
    assert figures.first_answers == 1 / 3
    assert figures.false_refusals == 1 / 3
    assert figures.absent_refused == 1 / 2
    assert figures.citation_precision == 1.0
    # right: 0.9; wrong: 0.6, 0.2 (refused), 0.1 and 0.7 (absent): 0.9 beats all four.
    assert figures.confidence_auroc == 1.0


def test_given_confidences_then_the_curve_refuses_what_scores_below_each_threshold() -> None:
    outcomes = [
        outcome(True, refused=False, confidence=0.35, answers=True),
        outcome(True, refused=False, confidence=0.65, answers=True),
        outcome(False, refused=False, confidence=0.15, answers=None),
        outcome(False, refused=False, confidence=0.45, answers=None),
    ]

    curve = {round(t, 1): (f, a) for t, f, a in refusal_curve(outcomes)}

    assert curve[0.1] == (0.0, 0.0)
    assert curve[0.2] == (0.0, 0.5)
    assert curve[0.4] == (0.5, 0.5)
    assert curve[0.5] == (0.5, 1.0)
    assert curve[0.7] == (1.0, 1.0)


def test_given_ties_and_one_sided_labels_then_auroc_counts_halves_or_says_nothing() -> None:
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([0.2, 0.4], [True, True]) is None
