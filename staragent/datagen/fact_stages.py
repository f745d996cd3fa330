"""The stages of the ``facts`` strategy (evidence first), run by :mod:`.pipeline` like the others:

describe -> facts -> drafts -> samples

``facts`` lists the video's distinct facts in the order to ask about them (no model); ``drafts`` plans
the samples and writes them one fact per turn, moving on to the next fact when a turn cannot be used
(:mod:`.drafting`); ``samples`` runs the automatic checks over the kept samples, as the windows strategy
does.
"""

from __future__ import annotations

from typing import Any

from ..bench.harness_errors import DatagenError
from ..bench.sample_records import Sample
from .describe import Description
from .drafting import FactDrafter, attempts_data, plan_slots, yield_of
from .facts import Fact, facts_of, spread_order
from .stages import agentic_tools, checked_rows, modalities_of, offered_tasks


def stage_facts(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = Description.model_validate(inputs["describe"])
    order = spread_order(facts_of(desc), desc.duration)
    if not order:
        raise DatagenError(f"{run.video.name} has nothing to ask about: its index holds no line said, text shown or sound named")
    run.count_items(len(order))
    return {"facts": [f.model_dump() for f in order]}


def stage_drafts(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = Description.model_validate(inputs["describe"])
    order = [Fact.model_validate(f) for f in inputs["facts"]["facts"]]
    tasks = offered_tasks(run, desc)
    tools = [t for t in agentic_tools(run, desc) if any(f.tool == t for f in order)]
    kinds = [k for k in run.options.kinds if (tools if k == "agentic" else tasks) and (k != "multi" or len(order) > 1)]
    if not kinds:
        raise DatagenError(
            f"nothing to generate for {run.video.name}: the tasks asked for ({', '.join(run.options.tasks) or 'all'}) need "
            f"content the video lacks (it {modalities_of(desc)})"
        )
    drafter = FactDrafter(run, desc, order, tasks=tasks, tools=tools, max_repairs=run.options.max_repairs)
    slots = plan_slots(kinds, run.options.per_video)
    samples, dropped = [], []
    with run.bar(len(slots), "drafts") as bar:
        for slot in slots:
            sample = drafter.write(slot)
            bar.update()
            if sample is None:
                dropped.append({"slot": slot.id, "stage": "drafts", "error": "no fact gave a usable reply"})
            else:
                samples.append(sample.model_dump(mode="json", exclude_none=True))
    run.count_items(len(samples))
    return {"samples": samples, "dropped": dropped, "attempts": attempts_data(drafter.attempts), "yield": yield_of(drafter.attempts)}


def stage_fact_samples(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = Description.model_validate(inputs["describe"])
    samples = [Sample.model_validate(row) for row in inputs["drafts"]["samples"]]
    rows = checked_rows(run, desc, samples)
    run.count_items(len(rows))
    return {"samples": rows, "dropped": inputs["drafts"]["dropped"]}
