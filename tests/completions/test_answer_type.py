"""The kind of answer a question asks for puts the sentence that has one first."""

from __future__ import annotations

import pytest

from groundwork.answer.answer_type import Kind, expected, fits
from groundwork.answer.relevance import gather
from groundwork.domain.cards import Card
from groundwork.embeddings.factory import get_embedder
from groundwork.generation.extractive import ExtractiveComposer


def lead(question: str, *texts: str) -> str:
    """The first sentence the extractive composer answers ``question`` with."""
    passages = [
        Card(id=f"c{i}", collection="c", source_id="s", url="u", text=text)
        for i, text in enumerate(texts)
    ]
    chosen = ExtractiveComposer().select(gather(question, passages, get_embedder()))
    return chosen[0].text


def test_given_a_topic_sentence_and_one_with_the_year_when_asked_what_year_then_it_leads() -> None:
    answer = lead(
        "In what year was Fort Coligny destroyed?",
        "A fort, named Fort Coligny, was built to protect them from attack from the Portuguese "
        "troops and Brazilian Native Americans. The fort was destroyed in 1560 by the Portuguese, "
        "who captured part of the Huguenots.",
    )

    assert (
        answer
        == "The fort was destroyed in 1560 by the Portuguese, who captured part of the Huguenots."
    )


def test_given_a_sentence_on_why_and_one_with_the_years_when_asked_how_long_then_they_lead() -> (
    None
):
    answer = lead(
        "How long did Christ live on earth?",
        "Christ lived so long on earth to show us the way to heaven by His teachings and example.",
        "Christ lived on earth about thirty-three years, and led a most holy life in poverty and "
        "suffering.",
    )

    assert answer.startswith("Christ lived on earth about thirty-three years"), answer


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("In what year was Fort Coligny destroyed?", "date"),
        ("When did the rebellions take place?", "date"),
        ("What day of the week does the Time for Reflection take place?", "date"),
        ("How many Sacraments are there?", "number"),
        ("What percentage of the vote did he win?", "number"),
        ("What was the population of the city in 1900?", "number"),
        ("Which Python version does the client need?", "number"),
        ("What version of the protocol added streaming?", "number"),
        ("Who made the world?", "name"),
        ("In 1890, who did the university decide to team up with?", "name"),
        ("By whom was the fort destroyed?", "name"),
        ("Where was the treaty signed?", "place"),
        ("Where do the ashes for Ash Wednesday come from?", None),  # an origin
        ("Why can't a body reach the speed of light, no matter how much energy?", None),
        ("What is prayer?", None),
        # "when" and "who" that open a clause of the question, not the question itself
        ("When violence is used, what is civil disobedience sometimes called?", None),
        ("What must he do who has wilfully concealed a mortal sin in Confession?", None),
        ("Civil disobedience is mainly performed by what population group?", None),
        # the other languages of the benchmark's questions
        ("Wann wurde die Festung zerstört?", "date"),
        ("¿A partir de qué año podía el Congreso prohibir la importación de esclavos?", "date"),
        ("Quando o Panamá assumiu o controle do canal?", "date"),
        ("Quanti anni bisogna avere per diventare senatore?", "number"),
        ("Ogni quanto deve riunirsi il Congresso?", "number"),
        ("Com quanta antecedência devo avisar?", "number"),
        ("¿Cuánto avanza por siglo el perihelio de Mercurio?", "number"),
        ("Der wievielte Papst war Pius XI.?", "number"),
        ("Ab wie vielen Wochenstunden muss ich einen Nebenjob melden?", "number"),
        ("Combien pesait Spoutnik ?", "number"),
        ("Quelle est la vitesse de la lumière ?", "number"),
        ("Chi ha dimostrato che la velocità della luce non dipende dal moto della stella?", "name"),
        ("Quem escolhe o presidente da Câmara dos Representantes?", "name"),
        ("Wen nennt Madison das Orakel?", "name"),
        ("Qui remplace le président s'il meurt ?", "name"),
        ("Para onde foram as expedições de 1919?", "place"),
        ("Jusqu'où une république peut-elle s'étendre ?", "place"),
        ("Chi elegge il nuovo papa quando il papa muore?", "name"),  # "quando" opens no clause
        ("D'où vient le nom ?", None),  # an origin
        ("Le pape, qui est élu par les cardinaux, peut-il démissionner ?", None),  # relative
        ("¿GitHub paga recompensas a quien encuentra vulnerabilidades?", None),  # relative
        ("Why are light quanta emitted in packets?", None),
        ("What distinction does the Bank of America Tower hold?", None),  # not "to wer"
    ],
)
def test_given_a_question_then_the_kind_of_answer_it_asks_for_is_read_from_its_asking_words(
    question: str, kind: Kind | None
) -> None:
    assert expected(question) == kind


@pytest.mark.parametrize(
    ("kind", "question", "sentence", "fit"),
    [
        ("date", "When was it built?", "It was built in 1560.", True),
        ("date", "When was it built?", "It was built in the 19th century.", True),
        ("date", "What day is the meeting?", "The first item on Wednesdays is the meeting.", True),
        ("date", "When was it built?", "It was built in May.", True),
        ("date", "When was it built?", "It may have been built by the Portuguese.", False),
        ("number", "How many men went?", "He was given 300 men.", True),
        ("number", "How long did Christ live on earth?", "He lived thirty-three years.", True),
        ("number", "How many men went?", "Many men went with him.", False),
        ("number", "How many cardinals are there?", "The whole number is seventy.", True),
        ("number", "How often is the militia called?", "Once or twice in a year.", True),
        ("date", "When is the training due?", "Training is due one month after you start.", True),
        ("date", "When is the I-9 due?", "Complete it within your first 3 days.", True),
        ("date", "When is the I-9 due?", "Complete it with your manager.", False),
        ("name", "Who made the world?", "God made the world.", True),
        ("name", "Who led Fort Coligny?", "Fort Coligny was led by them.", False),
        ("place", "Where was the treaty signed?", "It was signed in Paris.", True),
        ("place", "Where can I keep state?", "You can use the `app.state` attribute.", True),
        ("place", "Where are requests posted?", "They go to our [repository](https://x.y).", True),
        ("place", "Where can I keep state?", "you can keep it there.", False),
        (None, "What is prayer?", "Prayer is the lifting up of our minds.", True),
        # sentences in the other languages
        ("date", "Quando fu costruito?", "Fu costruito nel marzo del Cinquecento.", True),
        ("date", "Wann wurde sie gebaut?", "Im Jahrhundert der Reformation.", True),
        ("date", "Quand le dépôt est-il rétabli ?", "Il est rétabli sous dix jours.", True),
        ("date", "When was it built?", "It was built in Rio de Janeiro, not on Mars.", False),
        ("number", "Quanti senatori?", "Ogni Stato elegge due senatori.", False),  # "due"
        ("number", "Quanti senatori?", "Ogni Stato elegge tre senatori.", True),
        ("number", "Wie viele Wochen?", "Bis zu sechzehn, mindestens aber zwölf Wochen.", True),
        ("number", "Combien de jours ?", "Au moins trente jours avant.", True),
        ("number", "¿Cuántos miembros?", "Empezaría con sesenta y cinco miembros.", True),
        ("number", "¿Cuántos miembros?", "Empezaría con los miembros de cada estado.", False),
    ],
)
def test_given_a_kind_of_answer_then_a_sentence_fits_only_when_it_has_one(
    kind: Kind | None, question: str, sentence: str, fit: bool
) -> None:
    assert fits(kind, question, sentence) is fit
