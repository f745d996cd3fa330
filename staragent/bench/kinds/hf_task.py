"""STARBench-shaped samples from the Hugging Face hub (``hf:OWNER/NAME[:CONFIG][@SPLIT]``)."""

from ..datasets import load_hf
from .task import AgentDefaults, Task

TASK = Task(
    kind="hf",
    title="STARBench samples from the Hugging Face hub",
    scorers=("rubric", "trajectory", "lexical"),
    load=load_hf,
    agent=AgentDefaults("profile:offline"),
    remote=True,
)
