"""The offline benchmark built from a sample-video script (``STEM.facts.json``)."""

from ...datagen.synthetic import load_synthetic
from .task import AgentDefaults, Task

TASK = Task(
    kind="synthetic",
    title="Offline benchmark from a sample-video script",
    scorers=("rubric", "trajectory", "lexical"),
    load=load_synthetic,
    agent=AgentDefaults("profile:offline"),
    recognise=lambda path: path.name.endswith(".facts.json"),
)
