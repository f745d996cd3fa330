"""VDAct model outputs: one dialogue per sample, the generated answers replayable."""

from ..datasets import load_vdact_rows
from .task import AgentDefaults, Task

TASK = Task(
    kind="vdact",
    title="VDAct",
    scorers=("vdeval", "lave", "lexical", "consensus"),
    load_rows=load_vdact_rows,
    options=("summaries",),
    agent=AgentDefaults("replay"),
    matches_row=lambda row: "dial_id" in row and "ref_answer" in row,
)
