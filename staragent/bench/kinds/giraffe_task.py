"""Giraffe-Bench-style rows, each scored by its own evaluator (SGAE, PPE or MGAE)."""

from ..datasets import load_giraffe_rows
from .task import AgentDefaults, Task

TASK = Task(
    kind="giraffe",
    title="Giraffe-Bench",
    scorers=("giraffe",),
    load_rows=load_giraffe_rows,
    agent=AgentDefaults("replay"),
    matches_row=lambda row: "evaluator" in row and "ground_truth" in row,
)
