"""Page benchmark: how soon `staragent ui` serves a usable page after it is started, and how soon
the first answer shows on an indexed video (offline profile), measured in Debian's headless
Chromium as a person would see them. Each run starts a fresh server.

    python perf/run.py ui          # the 60-minute sample video of the pipeline benchmark
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, WORK, Timer, save, summary

sys.path.insert(0, str(ROOT / "tests"))

RUNS = 5
PAGE_READY = "return !!document.querySelector('#sa-question textarea')"
VIDEO_READY = "var s = document.querySelector('.sa-status'); return s && s.dataset.state"
ANSWERS = "return document.querySelectorAll('#sa-chat .sa-answer').length"
# The page's own clock: the Enter key going down, and the first frame painted with one more answer
# in the chat. Free of WebDriver's round trips, which the polled time below also counts.
WATCH_ANSWER = """
var chat = document.getElementById('sa-chat'), before = chat.querySelectorAll('.sa-answer').length;
window.saTimes = {asked: null, answered: null};
document.addEventListener('keydown', function (e) {
  if (e.key === 'Enter' && window.saTimes.asked === null) window.saTimes.asked = performance.now();
}, true);
new MutationObserver(function (changes, observer) {
  if (chat.querySelectorAll('.sa-answer').length > before) {
    observer.disconnect();
    requestAnimationFrame(function () { window.saTimes.answered = performance.now(); });
  }
}).observe(chat, {childList: true, subtree: true});
"""
PAGE_TIMES = "var t = window.saTimes; return t && t.asked !== null && t.answered !== null ? (t.answered - t.asked) / 1000 : null"


IMPORTS = {
    "import_gradio": "import gradio",  # as any program imports it
    "import_gradio_lean": "from staragent.ui.gradio_import import import_gradio; import_gradio()",  # as the page does
}


def import_gradio(code: str) -> tuple[float, float]:
    """Wall and CPU seconds a fresh Python spends running ``code`` (importing Gradio, most of the page's start)."""
    import resource

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = children_cpu()
    with Timer() as t:
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"})
    return t.seconds, children_cpu() - before


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far: on a shared machine the start-up's own
    cost, apart from the waiting for a core that the wall clock also counts."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(video: Path, cache: Path, question: str) -> dict:
    from browser import chromium, free_port, staragent_ui, wait_for, wait_http
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with chromium() as page:  # the browser is up before the server starts: its own start is not counted
        page.get("about:blank")
        port = free_port()
        with staragent_ui([video], cache, port) as (process, url, started):
            wait_http(url, 120, process)
            served = time.perf_counter() - started
            served_cpu = cpu_seconds(process.pid)
            check_real_page(url)
            page.get(url)
            wait_for(page, lambda p: p.execute_script(PAGE_READY), 120, poll=0.02)
            usable = time.perf_counter() - started
            opened_at = time.perf_counter()
            state = wait_for(page, lambda p: p.execute_script(VIDEO_READY) in ("ready", "failed") and p.execute_script(VIDEO_READY), 600, poll=0.02)
            if state != "ready":
                raise RuntimeError("the video could not be opened")
            opened = time.perf_counter() - opened_at
            box = page.find_element(By.CSS_SELECTOR, "#sa-question textarea")
            box.send_keys(question)
            page.execute_script(WATCH_ANSWER)
            before = cpu_seconds(process.pid)
            asked = time.perf_counter()
            box.send_keys(Keys.ENTER)
            wait_for(page, lambda p: p.execute_script(ANSWERS) >= 1, 120, poll=0.02)
            answered = time.perf_counter() - asked
            answer_cpu = cpu_seconds(process.pid) - before
            on_page = wait_for(page, lambda p: p.execute_script(PAGE_TIMES), 10, poll=0.02)
    return {"served_s": served, "served_cpu_s": served_cpu, "page_ready_s": usable, "video_open_s": opened,
            "first_answer_s": on_page, "first_answer_polled_s": answered, "first_answer_cpu_s": answer_cpu,
            "load_average": os.getloadavg()[0]}


def check_real_page(url: str) -> None:
    """The first 200 must be the page itself: Gradio's app with its config (video picker, chat, question box)."""
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read().decode("utf-8", "replace")
    if not all(marker in body for marker in ("window.gradio_config", "sa-video", "sa-chat", "sa-question")):
        raise RuntimeError(f"{url} answered, but not with the page's config")


def main(minutes: float = 60.0) -> dict:
    from browser import browser_paths
    from pipeline import sample_video

    from staragent.config import load_settings
    from staragent.index.builder import build_index
    from staragent.samples import SampleScript

    if browser_paths() is None:
        print("ui benchmark skipped: chromium and chromium-driver are not installed", flush=True)
        return {}
    video = sample_video(minutes)
    cache = WORK / "cache"
    with Timer() as t:
        build_index(video, load_settings(cache_dir=cache, progress=False))  # a cache hit after the pipeline benchmark
    print(f"index ready in {t.seconds:.1f} s", flush=True)
    facts = [f for f in SampleScript.load(video.with_name(video.stem + ".facts.json")).facts if f.modality != "visual"]
    runs = []
    for i in range(RUNS):
        runs.append(one_run(video, cache, facts[i * 7 % len(facts)].question))
        print(f"run {i + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in runs[-1].items()), flush=True)
    data = {
        "command": "python perf/run.py ui",
        "video": {"minutes": minutes, "file": video.name},
        "runs": runs,
        **{key: summary([r[key] for r in runs]) for key in runs[0]},
    }
    for name, code in IMPORTS.items():
        data.update(zip((f"{name}_s", f"{name}_cpu_s"), map(summary, zip(*[import_gradio(code) for _ in range(3)]))))
    save("ui_cpu", data)
    return data


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
