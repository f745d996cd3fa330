"""A sandbox for running untrusted code (the execute_code tool): see ``runner.py``."""

from .runner import Limits, RunResult, choose_method, run_code

__all__ = ["Limits", "RunResult", "choose_method", "run_code"]
