"""Driving the page in a real browser: Debian's headless Chromium through Selenium and Debian's
chromium-driver (never a downloaded browser), and `staragent ui` started as a person starts it.
Used by the browser test and by the page benchmark (perf/ui.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--window-size=1400,1000", "--autoplay-policy=no-user-gesture-required",
)


def browser_paths() -> tuple[str, str] | None:
    """(chromium, chromedriver) when both are installed, else None."""
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
    return (chromium, driver) if chromium and driver else None


@contextlib.contextmanager
def chromium():
    """A headless Chromium with a fresh profile, driven by Selenium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = browser_paths()
    if paths is None:
        raise RuntimeError("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    binary, driver_path = paths
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not look for drivers online
    with tempfile.TemporaryDirectory(prefix="sa-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float, process: subprocess.Popen | None = None) -> float:
    """Seconds until ``url`` answers 200 (raises after ``timeout`` or if ``process`` exits)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return time.perf_counter() - started
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


@contextlib.contextmanager
def staragent_ui(videos: list[Path], cache: Path, port: int, *extra: str, log: Path | None = None):
    """`staragent ui VIDEOS --port PORT` in a child process; yields (process, base URL, start time)."""
    env = {**os.environ, "STARAGENT_CACHE_DIR": str(cache), "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    with open(log or os.devnull, "w") as out:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "staragent", "ui", *map(str, videos), "--port", str(port), *extra],
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield process, f"http://127.0.0.1:{port}/", started
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_for(driver, condition, timeout: float = 60.0, poll: float = 0.1):
    """Poll ``condition(driver)`` until it is truthy; return its value."""
    deadline = time.perf_counter() + timeout
    while True:
        value = condition(driver)
        if value:
            return value
        if time.perf_counter() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {getattr(condition, '__name__', 'a condition')}")
        time.sleep(poll)
