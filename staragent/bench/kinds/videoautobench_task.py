"""VideoAutoBench questions; the human-selected answer is the reference."""

from ..datasets import load_videoautobench_rows
from .task import AgentDefaults, Task

TASK = Task(
    kind="videoautobench",
    title="VideoAutoBench",
    scorers=("videoautobench",),
    load_rows=load_videoautobench_rows,
    options=("responses",),
    agent=AgentDefaults("replay"),
    matches_row=lambda row: "selected answer" in row or "rejected answer" in row,
)
