"""The reading core every planner shares: question → frame → retrieve → rank → read → ``Answer``.

- ``frame``: the ``QuestionFrame`` (answer type, terms, names, quotes, time scope, reference to the
  previous turn) and ``SpacyQuestionReader``, which reads it from spaCy's parse and WordNet;
- ``lines``: every line of an index (speech, on-screen text, sounds) as typed ``Evidence`` with an
  id, its heading and its neighbours;
- ``retrieve``: line-level BM25 (alone and with neighbours) and e5 similarity;
- ``features`` and ``rank``: named features, weighted by ``ranker.json`` (fitted by ``eval/fit_ranker.py``), and
  the calibrated threshold below which the video is taken not to hold the answer;
- ``read``: the extractive reader (no model) and the LLM reader (one call, ids checked);
- ``core.read_question``: all of it over one index.

Layer: ``qa`` reads the index and the models; tools and the agent use it; it imports neither.
"""

from .answer import Answer
from .core import Reading, read_question
from .frame import QuestionFrame, SpacyQuestionReader, TimeScope

__all__ = ["Answer", "QuestionFrame", "Reading", "SpacyQuestionReader", "TimeScope", "read_question"]
