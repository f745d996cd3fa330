"""staragent.bench: run agents over STARBench-style benchmarks, score answers and tool use, report.
Building datasets is beside it, in :mod:`staragent.datagen`.

- :mod:`~staragent.bench.kinds` — a :class:`~staragent.bench.kinds.task.Task` per dataset kind (its
  loader, default scorers and default agent), ``load_dataset(spec)``; the file formats' readers are in
  :mod:`~staragent.bench.datasets`.
- :mod:`~staragent.bench.agents` — the :class:`~staragent.bench.agents.BenchAgent` protocol,
  ``make_agent(spec, settings)``, test agents, the simulated-tools hook;
  :mod:`~staragent.bench.baseline` — the tool-free baseline over the video's transcript and screen text.
- :mod:`~staragent.bench.execution` — ``run_benchmark``: per-turn, fsync'd, locked, resumable;
  :mod:`~staragent.bench.rundir` — the run directory's files.
- :mod:`~staragent.bench.judges` — ``make_judge(spec)``: heuristic, scripted, any chat backend
  (:mod:`~staragent.bench.chat`).
- :mod:`~staragent.bench.scoring` / :mod:`~staragent.bench.scorers` — ``score_run`` and the registered
  scorers; :mod:`~staragent.bench.metaeval` — agreement with human scores, judge validation.
- :mod:`~staragent.bench.report` — summary JSON, Markdown, HTML (:mod:`~staragent.bench.charts`);
  :mod:`~staragent.bench.compare` — run comparison; :mod:`~staragent.bench.inspect_log` — export as
  an inspect_ai eval log.
- :mod:`~staragent.bench.commands` — the ``bench`` click group.

Nothing heavy is imported here; import the submodule you need.
"""
