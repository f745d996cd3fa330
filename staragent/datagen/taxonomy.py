"""What a generated dataset asks about: the STARBench task taxonomy, the question types, the difficulty
mix, and which agentic tools a video's evidence can support.

Task names are the 16 canonical tasks of :mod:`staragent.bench.tasks` (Table 3 of the paper), so every
generated sample lands in a category of the released scorer, plus one agentic task per tool of Table 7
(``agentic_<tool>``): 16 + 16 = the paper's 32 tasks. ``--tasks`` also takes the raw task names of the
paper's generation prompt (``ocr_text_extraction`` ...), which the released remapping folds into the
canonical ones, and category names.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..bench.harness_errors import DatasetError
from ..bench.tasks import CANONICAL_TASKS, CATEGORIES, canonical_task, normalise_task

# What each canonical task asks of a model, in words a writer model can act on.
TASK_GUIDE: dict[str, str] = {
    "entity_recognition": "who or what appears or is named: people, products, places, brands, and text read off the screen",
    "event_understanding": "what happens: actions, steps of an event, changes of state, what a scene is about",
    "temporal_understanding": "when things happen and in what order: moments, durations, before and after",
    "audio_understanding": "what is heard: what is said and by whom, sounds, music, tone of voice",
    "causal_reasoning": "why something happens or what follows from it, using everyday common sense",
    "quantitative_reasoning": "numbers: counting, prices, totals, differences, rates, measurements",
    "compositional_reasoning": "combining several pieces of the video in steps, including what-if questions",
    "comparative_analysis": "how two things in the video differ or agree, or how something changes over time",
    "information_retrieval": "looking up a specific fact the video gives: a name, a figure, a date, a specification",
    "summarization": "the main points of a part of the video or of all of it",
    "instruction_extraction": "steps, procedures, advice or recommendations the video gives",
    "sentiment_analysis": "attitude, mood or tone of what is said or shown",
    "multimodal_synthesis": "an answer that needs what is said together with what is shown or heard",
    "cross_modal_verification": "whether what is said agrees with what is shown on screen (or heard)",
    "audio_visual_alignment": "which sound or speech goes with which picture or moment",
    "motion_analysis": "movement in the picture: direction, speed, where things go",
}

# Evidence a task cannot be grounded without (any one set suffices): captions are the only visual
# semantics an index holds, so motion cannot be asked about without them.
TASK_NEEDS: dict[str, tuple[frozenset[str], ...]] = {
    "motion_analysis": (frozenset({"caption"}),),
    "audio_visual_alignment": (frozenset({"caption"}), frozenset({"speech", "ocr"}), frozenset({"sound", "ocr"})),
    "cross_modal_verification": (frozenset({"speech", "ocr"}), frozenset({"speech", "caption"}), frozenset({"sound", "caption"})),
    "multimodal_synthesis": (frozenset({"speech", "ocr"}), frozenset({"speech", "caption"}), frozenset({"sound", "ocr"}), frozenset({"sound", "caption"})),
    "audio_understanding": (frozenset({"speech"}), frozenset({"sound"})),
}  # fmt: skip

# The 16 tools of Table 7, each an agentic task of its own; and the evidence its expected call needs.
AGENTIC_TOOLS: tuple[str, ...] = (
    "transcribe_speech", "extract_scene_text", "count_objects", "object_detection", "extract_math_exp", "calculator",
    "web_search", "detect_audio_events", "execute_code", "detect_activities", "summarize_segment", "detect_faces",
    "cross_modal_search", "memory_tool", "translate_speech", "translate_text",
)  # fmt: skip
TOOL_NEEDS: dict[str, tuple[frozenset[str], ...]] = {
    "transcribe_speech": (frozenset({"speech"}),),
    "translate_speech": (frozenset({"speech"}),),
    "extract_scene_text": (frozenset({"ocr"}),),
    "translate_text": (frozenset({"ocr"}), frozenset({"speech"})),
    "extract_math_exp": (frozenset({"math"}),),
    "calculator": (frozenset({"numbers"}),),
    "execute_code": (frozenset({"numbers"}),),
    "detect_audio_events": (frozenset({"sound"}),),
    "summarize_segment": (frozenset({"speech"}), frozenset({"ocr"})),
    "count_objects": (frozenset({"caption"}),),
    "object_detection": (frozenset({"caption"}),),
    "detect_activities": (frozenset({"caption"}),),
    "cross_modal_search": (frozenset(),),
    "memory_tool": (frozenset(),),
}
# Tools whose answers come from outside the video (the web, a gallery of known faces): the index holds
# nothing to check an expected response against, so they are generated only when asked for by name.
ON_REQUEST_TOOLS = frozenset({"web_search", "detect_faces"})
AGENTIC_PREFIX = "agentic_"
# Tools shown to the writer beside an agentic sample's own tool: finding the moment, reading what is
# said or shown there, computing. A short list keeps the prompt small for small models; a call to any
# other registered tool is still accepted.
COMPANION_TOOLS = ("cross_modal_search", "transcribe_speech", "extract_scene_text", "calculator", "memory_tool")

# Question types of the paper's mapping prompt (Appendix B.2), by family.
QUESTION_TYPES: dict[str, tuple[str, ...]] = {
    "factual": ("direct_fact", "numerical_extraction", "frequency_counting", "text_extraction", "attribute_identification"),
    "temporal": ("timestamp_identification", "duration_calculation", "sequence_ordering", "temporal_relationship"),
    "spatial": ("location_identification", "spatial_relationship", "movement_tracking", "navigation_description"),
    "descriptive": ("scene_description", "action_description", "visual_appearance", "audio_description"),
    "reasoning": ("causal_explanation", "inference_making", "prediction", "intention_analysis", "problem_identification",
                  "counterfactual_reasoning"),
    "comparative": ("difference_identification", "similarity_identification", "change_analysis"),
    "procedural": ("step_extraction", "instruction_clarification", "missing_step_identification"),
    "synthesis": ("summary_generation", "key_information_extraction", "narrative_construction", "pattern_identification",
                  "long_horizon_integration"),
    "multimodal": ("audio_visual_alignment", "cross_modal_information", "modality_comparison", "complementary_information"),
    "analytical": ("error_detection", "quality_assessment", "consistency_check", "completeness_evaluation"),
    "complex": ("multi_hop_reasoning", "contextual_interpretation", "implicit_information", "holistic_understanding",
                "ambiguity_resolution"),
}  # fmt: skip
ALL_QUESTION_TYPES: frozenset[str] = frozenset(t for types in QUESTION_TYPES.values() for t in types)

# Question types a task is usually tested with (the paper's mapping guidelines), used when the writer
# gives none.
DEFAULT_QUESTION_TYPES: dict[str, tuple[str, ...]] = {
    "entity_recognition": ("direct_fact", "attribute_identification", "text_extraction"),
    "event_understanding": ("action_description", "scene_description"),
    "temporal_understanding": ("timestamp_identification", "sequence_ordering", "temporal_relationship"),
    "audio_understanding": ("audio_description", "cross_modal_information"),
    "causal_reasoning": ("causal_explanation", "inference_making"),
    "quantitative_reasoning": ("numerical_extraction", "frequency_counting"),
    "compositional_reasoning": ("multi_hop_reasoning", "counterfactual_reasoning"),
    "comparative_analysis": ("difference_identification", "change_analysis"),
    "information_retrieval": ("direct_fact", "key_information_extraction"),
    "summarization": ("summary_generation", "key_information_extraction"),
    "instruction_extraction": ("step_extraction", "instruction_clarification"),
    "sentiment_analysis": ("contextual_interpretation", "implicit_information"),
    "multimodal_synthesis": ("complementary_information", "cross_modal_information"),
    "cross_modal_verification": ("consistency_check", "modality_comparison"),
    "audio_visual_alignment": ("audio_visual_alignment", "cross_modal_information"),
    "motion_analysis": ("movement_tracking", "action_description"),
}

# Tasks whose questions are worth asking across distant parts of a long video.
LONG_HORIZON_TASKS = frozenset({"summarization", "comparative_analysis", "compositional_reasoning", "temporal_understanding"})

# Share of questions per difficulty level, inside the paper's ranges (sec. 3.2: at most 15% at
# levels 1-2, 25-30% level 3, 35-40% level 4, 25-30% level 5).
DIFFICULTY_MIX: dict[int, float] = {1: 0.05, 2: 0.10, 3: 0.25, 4: 0.35, 5: 0.25}
KINDS = ("single", "multi", "agentic")
KIND_MIX: dict[str, float] = {"single": 0.5, "multi": 0.25, "agentic": 0.25}
CONVERSATION_ROLES = ("opener", "deepener", "challenger", "synthesizer")


def fits(needs: tuple[frozenset[str], ...] | None, evidence: set[str]) -> bool:
    """Whether ``evidence`` (the kinds of content a video has) satisfies one of the alternatives."""
    return needs is None or any(alternative <= evidence for alternative in needs)


def agentic_task(tool: str) -> str:
    return f"{AGENTIC_PREFIX}{tool}"


def tool_of_task(task: str) -> str | None:
    return task[len(AGENTIC_PREFIX):] if task.startswith(AGENTIC_PREFIX) and task[len(AGENTIC_PREFIX):] in AGENTIC_TOOLS else None


def resolve_tasks(names: Iterable[str] | None) -> tuple[set[str], set[str], set[str]]:
    """``--tasks`` into (canonical tasks, agentic tools, tools asked for by name). Accepted: canonical
    task names, the paper's raw task names, category names (``core_perception``, ``reasoning``,
    ``information``, ``multimodal``, ``agentic``), ``agentic_<tool>`` or a tool name. Nothing given: every
    task and every tool the evidence supports."""
    names = [n for n in (names or []) if str(n).strip()]
    if not names:
        return set(CANONICAL_TASKS), set(AGENTIC_TOOLS) - ON_REQUEST_TOOLS, set()
    tasks: set[str] = set()
    tools: set[str] = set()
    named_tools: set[str] = set()
    for raw in names:
        name = normalise_task(raw)
        if name in CATEGORIES:
            tasks.update(CATEGORIES[name])
        elif name == "agentic":
            tools.update(set(AGENTIC_TOOLS) - ON_REQUEST_TOOLS)
        elif (tool := tool_of_task(name)) or (tool := name if name in AGENTIC_TOOLS else None):
            tools.add(tool)
            named_tools.add(tool)
        elif canon := canonical_task(name):
            tasks.add(canon)
        else:
            known = ", ".join([*CATEGORIES, "agentic"])
            raise DatasetError(
                f"--tasks names no task called {raw!r}; use a task such as causal_reasoning, a category ({known}), "
                f"or agentic_<tool> for one of the 16 tools (e.g. agentic_calculator)"
            )
    return tasks, tools, named_tools
