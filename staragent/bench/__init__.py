"""staragent.bench: run agents over STARBench-style benchmarks, score answers and tool use, report.

- :mod:`~staragent.bench.datasets` — loaders (STARBench/LongShOTBench JSON, JSONL, HF hub; VDAct;
  VideoAutoBench; Giraffe-Bench-style) into :class:`~staragent.bench.schema.Sample`;
  :mod:`~staragent.bench.synthetic` — the offline benchmark from the sample-video script.
- :mod:`~staragent.bench.agents` — the :class:`~staragent.bench.agents.BenchAgent` protocol,
  ``make_agent(spec, settings)``, test and baseline agents, the simulated-tools hook.
- :mod:`~staragent.bench.runner` — ``run_benchmark``: per-turn, fsync'd, resumable.
- :mod:`~staragent.bench.judges` — ``make_judge(spec)``: heuristic, scripted, any LangChain chat model.
- :mod:`~staragent.bench.scoring` / :mod:`~staragent.bench.scorers` — ``score_run`` and the metrics.
- :mod:`~staragent.bench.report` — summary JSON, Markdown, HTML; run comparison.
- :mod:`~staragent.bench.cli` — the ``bench`` click group.

Nothing heavy is imported here; import the submodule you need.
"""
