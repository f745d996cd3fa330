"""A model pack deleted while a server runs: the next request that needs it must say which pack and
how to restore it, and the same server must go on once it is restored. The index made with the pack
is kept as it is (not remade without it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_faults_servers import cache_with_index

sys.path.insert(0, str(Path(__file__).parent.parent / "perf"))
pytestmark = pytest.mark.slow


def test_a_model_pack_deleted_while_the_server_runs_is_named_with_how_to_restore_it(foreign, foreign_index, tmp_path):
    """The e5 pack's package is seen through a folder of links placed first on the server's path, so
    that its weights can be deleted (and put back) without touching the installed package."""
    from load import running_server
    from load_clients import AskFailed, open_client

    from staragent.models.bundled import E5_SMALL
    from staragent.models.packs import package_root

    (module, requirement), = E5_SMALL.packages
    site = tmp_path / "site"
    (site / module).mkdir(parents=True)
    installed = package_root(module)
    for file in installed.iterdir():
        (site / module / file.name).symlink_to(file)
    for libs in installed.parent.glob(f"{module}.libs"):  # the shared libraries its compiled engine loads
        (site / libs.name).symlink_to(libs)
    weights = site / module / E5_SMALL.files[0].parts[0].path
    cache = cache_with_index(foreign_index, tmp_path / "cache")
    packs = tmp_path / "packs"  # nothing assembled yet: the server assembles the pack when a request first needs it
    with running_server("mcp", foreign.path.parent, cache, packs, tmp_path / "server", extra_env={"PYTHONPATH": str(site)}) as (target, _):
        client = open_client(target, foreign.path, "kept")
        target_link = weights.readlink()
        weights.unlink()  # the pack's weights are gone while the server runs
        with pytest.raises(AskFailed) as refused:
            client.call_tool("search", {"video": str(foreign.path), "query": "keynote speaker"})
        message = str(refused.value)
        assert E5_SMALL.name in message and requirement in message, message  # which pack, and the command that restores it
        weights.symlink_to(target_link)  # restored as the message says: the same server goes on
        found = client.call_tool("search", {"video": str(foreign.path), "query": "keynote speaker"})
        assert found["hits"]
        client.close()
