"""STARBench / LongShOTBench samples in a JSON or JSON-lines file."""

from ..datasets import load_starbench_rows
from .task import AgentDefaults, Task

TASK = Task(
    kind="starbench",
    title="STARBench / LongShOTBench",
    scorers=("rubric", "trajectory", "lexical"),
    load_rows=load_starbench_rows,
    agent=AgentDefaults("profile:offline"),
    matches_row=lambda row: "conversations" in row,
)
