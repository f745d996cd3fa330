"""`staragent ui` as a server, without a browser: with a token, nothing is served to requests
that lack it (the page, Gradio's API, the video routes)."""

import urllib.error
import urllib.request

import pytest
from browser import free_port, staragent_ui, wait_http

pytestmark = pytest.mark.slow


def test_the_page_with_a_token_serves_nothing_without_it(foreign, tmp_path):
    port = free_port()
    with staragent_ui([foreign.path.parent], tmp_path / "cache", port, "--token", "s3cret") as (process, url, _):
        wait_http(url + "?token=s3cret", 120, process)
        for path in ("", "config", "gradio_api/info", "staragent/video/0123456789abcdef"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url + path, timeout=10)
            assert refused.value.code == 401
        page = urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Bearer s3cret"}), timeout=10)
        assert page.status == 200 and b"staragent" in page.read()
        with pytest.raises(urllib.error.HTTPError) as unknown:  # only videos opened through the page are served
            urllib.request.urlopen(urllib.request.Request(url + "staragent/video/0123456789abcdef", headers={"Authorization": "Bearer s3cret"}), timeout=10)
        assert unknown.value.code == 404
