"""Typed errors. Each one carries a message meant for the person at the keyboard:
what went wrong and what to do about it. The CLI prints the message and exits with code 2."""

from __future__ import annotations


class StarAgentError(Exception):
    """Base class of every error staragent raises on purpose."""

    exit_code = 2


class InputError(StarAgentError):
    """The user gave us something we cannot use (bad path, empty question, malformed argument)."""


class MediaError(InputError):
    """The file is missing, is not a video, is corrupt, or lacks what the operation needs."""


class SubtitleError(InputError):
    """A subtitle file exists but cannot be read or parsed."""


class TimeFormatError(InputError):
    """A timestamp or time range could not be parsed, or lies outside the video."""


class IndexBuildError(StarAgentError):
    """A preprocessing stage failed; completed stages stay cached."""


class DiskFull(StarAgentError):
    """The disk holding the cache has no room left; what was finished before is kept."""


class BuildCancelled(StarAgentError):
    """Another stage of the same build failed; this one stopped early."""


class ModelUnavailable(StarAgentError):
    """An expert model or backend is not available in this environment or profile."""


class ToolError(StarAgentError):
    """A tool could not do what it was asked (bad arguments, missing capability)."""


class ConfigError(StarAgentError):
    """Settings are inconsistent or name something that does not exist."""
