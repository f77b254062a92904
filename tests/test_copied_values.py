"""Values copied from the few-shot episodes: names count as well as numbers, and a copy repeated after its
correction ends the run without an answer instead of passing the example's value off as this question's."""

from __future__ import annotations

import json
from pathlib import Path

from react_text.agent.loop import Agent
from react_text.agent.results import STATUSES
from react_text.backends.scripted import ScriptedBackend
from react_text.prompting.episodes import episode_values
from react_text.prompting.example_sets import coerce_episodes
from react_text.prompting.templates import load_template
from react_text.checks.answers import copied_example_value
from react_text.tools.spec import tool

EXAMPLES = [{
    "question": "Who designed the Selmer Lighthouse?",
    "steps": [{"thought": "I search.", "tool": "search", "args": {"query": "Selmer Lighthouse"},
               "observation": "[1] coast.txt: The Selmer Lighthouse was designed by Runa Vell in 1885."}],
    "thought": "So the designer is Runa Vell.",
    "answer": "Runa Vell",
}]
QUESTION = "Who drew up the plans for the Ferrowick Salt Museum?"
MUSEUM = "[1] museum.txt: The Ferrowick Salt Museum tells the story of salt making on the coast."


def test_an_episode_answer_that_is_a_name_is_a_value_to_watch_and_a_refusal_is_not() -> None:
    shipped = coerce_episodes(json.loads(Path("prompts/examples/en.json").read_text()), "en.json")
    values = episode_values(shipped)
    assert "Runa Vell" in values and "1240" in values
    assert not any("cannot find" in v for v in values)  # the refusal episode's answer is an answer to give


def test_a_name_copied_from_the_episodes_is_caught_unless_the_run_saw_it() -> None:
    values = frozenset({"Runa Vell", "855"})
    assert copied_example_value("It was runa vell.", values, [QUESTION, MUSEUM]) == "Runa Vell"
    assert copied_example_value("Runa Vell", values, [QUESTION, "[1] designed by Runa Vell"]) is None
    assert copied_example_value("Lionel Achterberg", values, [QUESTION, MUSEUM]) is None


def _agent(turns: list[str]) -> tuple[Agent, ScriptedBackend]:
    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return MUSEUM

    backend = ScriptedBackend(turns)
    return Agent(backend, [search], load_template("classic"), examples=EXAMPLES,
                 checks="+example_value,+copied_example"), backend  # both off by default


ACTION = 'Thought: I search.\nAction: search\nAction Input: {"query": "Ferrowick Salt Museum plans"}'


def test_a_copy_repeated_after_its_correction_ends_the_run_without_an_answer() -> None:
    agent, backend = _agent([ACTION, " So it is Runa Vell.\nFinal Answer: Runa Vell",
                             " It is Runa Vell.\nFinal Answer: Runa Vell"])
    result = agent.run(QUESTION)
    assert result.steps[1].decision.reason == "guard:example_value"
    assert "comes from the examples" in backend.prompts[2]
    assert result.status == "copied_example" and result.status in STATUSES
    assert "Runa Vell" in result.answer and result.answer.startswith("No answer (copied_example)")


def test_an_answer_that_leaves_the_copy_behind_is_accepted() -> None:
    agent, _ = _agent([ACTION, " So it is Runa Vell.\nFinal Answer: Runa Vell",
                       " The results do not say.\nFinal Answer: I cannot find that: the documents do not say."])
    result = agent.run(QUESTION)
    assert result.status == "answered" and result.answer.startswith("I cannot find that")
