"""The page in a real browser (Debian's headless Chromium, driven by Selenium and chromium-driver):
pick a generated video, watch it being indexed, ask a question, see the tool calls and the answer,
click a timestamp and check that the player moved there. A screenshot is saved with the test's
output (``test-output/``, or the folder named by STARAGENT_TEST_OUTPUT).

Without a browser the test is skipped, unless STARAGENT_REQUIRE_BROWSER is set (CI sets it)."""

import os
import shutil
import time
from pathlib import Path

import pytest
from browser import browser_paths, chromium, free_port, staragent_ui, wait_for, wait_http

pytestmark = pytest.mark.slow
OUTPUT = Path(os.environ.get("STARAGENT_TEST_OUTPUT") or Path(__file__).parent.parent / "test-output")

LINKS = """return Array.from(document.querySelectorAll('#sa-chat a[href^="#t="]')).map(function (a) {
  var message = a.closest('.message') || a.parentElement;
  return [a.getAttribute('href'), message.textContent];
});"""
STATUS = "var s = document.querySelector('.sa-status'); return s ? [s.dataset.state, s.querySelectorAll('.sa-stages li').length, s.innerText] : null;"


@pytest.fixture(scope="module")
def h264_talk(tmp_path_factory):
    """The conference video in H.264 (which browsers play), and a copy under another name, so
    that the page has two videos to choose from."""
    from media_factory import conference_video

    folder = tmp_path_factory.mktemp("page-videos")
    video = conference_video(folder / "conference.mp4", subtitles="vtt", codec="libx264")
    shutil.copy(video.path, folder / "another.mp4")
    return video


def test_ask_in_the_browser_and_jump_to_a_timestamp(h264_talk, tmp_path):
    if browser_paths() is None:
        if os.environ.get("STARAGENT_REQUIRE_BROWSER"):
            pytest.fail("STARAGENT_REQUIRE_BROWSER is set but chromium / chromium-driver are missing (make system-deps installs them)")
        pytest.skip("no browser: apt-get install chromium chromium-driver")
    from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    port = free_port()
    with staragent_ui([h264_talk.path.parent], tmp_path / "cache", port, log=tmp_path / "ui.log") as (process, url, _), chromium() as page:
        wait_http(url, 120, process)
        page.get(url + "?video=../../etc/passwd")  # a path outside the folder: refused with a message, nothing opened
        toast = wait_for(page, lambda p: p.execute_script("var t = document.querySelector('.toast-body'); return t && t.innerText"), 60)
        assert "may open" in toast and "Traceback" not in toast

        page.find_element(By.CSS_SELECTOR, "#sa-video input").click()
        wait_for(page, lambda p: p.find_elements(By.CSS_SELECTOR, "li[role=option][aria-label='conference.mp4']"))[0].click()
        seen = []
        deadline = time.monotonic() + 300  # indexing, then the first question's models: minutes on a busy 2-core machine
        while (status := wait_for(page, lambda p: p.execute_script(STATUS), 30))[0] != "ready":
            assert status[0] != "failed", status[2]
            seen.append(status)
            if time.monotonic() > deadline:
                pytest.fail(f"the video never became ready: {status}")
            time.sleep(0.2)
        assert any(state == "running" and stages >= 1 for state, stages, _ in seen)  # stages appear as they finish
        assert status[1] >= 5  # the finished page lists every stage that ran

        box = page.find_element(By.CSS_SELECTOR, "#sa-question textarea")
        box.send_keys("Who is the keynote speaker?")
        box.send_keys(Keys.ENTER)
        wait_for(page, lambda p: p.execute_script("return document.querySelectorAll('#sa-chat .sa-answer').length"), 60)  # the answer, after the steps
        links = wait_for(page, lambda p: [link for link in p.execute_script(LINKS) if "Amara Singh" in link[1]], 20)
        steps = page.execute_script("return document.querySelector('#sa-chat').innerText")
        assert "cross_modal_search" in steps  # the tool calls are shown, not only the answer
        thumbnails = page.execute_script("return Array.from(document.querySelectorAll('#sa-chat img.sa-thumb')).map(i => i.naturalWidth)")
        wait_for(page, lambda p: all(p.execute_script("return Array.from(document.querySelectorAll('#sa-chat img.sa-thumb')).map(i => i.complete && i.naturalWidth > 0)")), 20)
        assert thumbnails  # a keyframe beside what was read on screen

        target = float(links[0][0].removeprefix("#t="))
        assert 9 <= target <= 20  # the speaker's slide, 0:10-0:20

        def click_link(p):
            try:
                link = p.find_elements(By.CSS_SELECTOR, f"#sa-chat a[href='{links[0][0]}']")[0]
                p.execute_script("arguments[0].scrollIntoView({block: 'center'});", link)
                link.click()
                return True
            except (StaleElementReferenceException, ElementNotInteractableException):
                return False  # the chat was being redrawn when the link was clicked: find it again

        wait_for(page, click_link, 20)
        position = wait_for(page, lambda p: (t := p.execute_script("return document.getElementById('sa-player').currentTime")) >= target - 0.25 and t, 20)
        assert target - 0.25 <= position <= target + 3  # it jumped there (and may have started playing)
        assert page.current_url.startswith(url)  # no navigation away from the page

        conversations = wait_for(page, lambda p: p.execute_script("return document.querySelector('#sa-threads input').value"), 20)
        assert "Who is the keynote speaker?" in conversations  # the conversation is kept and listed

        OUTPUT.mkdir(parents=True, exist_ok=True)
        shot = OUTPUT / "ui-timestamp-seek.png"
        page.save_screenshot(str(shot))
        print(f"screenshot: {shot}")

        upload = tmp_path / "my talk.mp4"
        shutil.copy(h264_talk.path, upload)
        page.find_element(By.CSS_SELECTOR, "#sa-upload input[type=file], input[type=file]").send_keys(str(upload))
        wait_for(page, lambda p: (p.execute_script(STATUS) or [None])[0] == "ready" and "my_talk" in p.execute_script(STATUS)[2], 120)
        assert "uploaded" in page.execute_script("return document.querySelector('#sa-video input').value")
    assert shot.stat().st_size > 10_000
    assert [p.name.startswith("my_talk-") for p in (tmp_path / "cache" / "uploads").iterdir()] == [True]  # kept in the cache

    with staragent_ui([h264_talk.path.parent], tmp_path / "cache", port) as (process, url, _), chromium() as page:  # after a restart
        wait_http(url, 120, process)
        page.get(url + "?video=conference.mp4")
        wait_for(page, lambda p: (p.execute_script(STATUS) or [None])[0] == "ready", 120)
        page.find_element(By.CSS_SELECTOR, "#sa-threads input").click()
        [kept] = wait_for(page, lambda p: [o for o in p.find_elements(By.CSS_SELECTOR, "li[role=option]") if "keynote" in o.text])
        kept.click()
        resumed = wait_for(page, lambda p: p.execute_script("return document.querySelectorAll('#sa-chat .sa-answer').length") and
                           p.execute_script("return document.querySelector('#sa-chat').innerText"), 60)
        assert "Who is the keynote speaker?" in resumed and "Amara Singh" in resumed
