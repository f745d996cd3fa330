"""Errors of the benchmark harness. Each names the problem and the fix; the CLI prints the message on
one line and exits with code 2."""

from __future__ import annotations

from ..errors import InputError


class DatasetError(InputError):
    """A dataset file is missing, unreadable, or has a malformed row."""


class RunDirError(InputError):
    """A run directory is missing, incomplete, or belongs to another dataset or agent."""


class UnknownMetricError(InputError):
    """A metric name that the harness does not know."""


class AgentSpecError(InputError):
    """An ``--agent`` spec that names no known agent."""


class JudgeSpecError(InputError):
    """A ``--judge`` spec that cannot be turned into a judge, or a metric that needs another judge."""


class MixedJudgesError(InputError):
    """Runs compared on scores from different judges (without ``--allow-mixed-judges``)."""


class DatagenError(InputError):
    """A dataset-generation run cannot go on: nothing to ask about, a bad option, a review file that
    does not fit the run."""
