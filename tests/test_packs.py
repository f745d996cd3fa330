"""Model packs: split files are joined once into the cache, checked against their sha256, and a
missing, truncated or corrupt pack is named with the command that fixes it."""

import hashlib
import zipfile

import pytest

from staragent.models import packs
from staragent.models.bundled import PACKS
from staragent.models.packs import Pack, PackError, PackFile, Part, pack_dir, pack_status

PART1, PART2 = b"first half of the weights " * 1000, b"and the second half" * 777


@pytest.fixture
def fake_packages(tmp_path, monkeypatch):
    """Two importable packages holding a model split in two, and a zipped file."""
    site = tmp_path / "site"
    for name, data in (("fakepack_a", PART1), ("fakepack_b", PART2)):
        (site / name / "data").mkdir(parents=True)
        (site / name / "__init__.py").write_text("")
        (site / name / "data" / "model.bin.part").write_bytes(data)
    (site / "fakepack_a" / "data" / "config.json").write_text('{"layers": 2}')
    with zipfile.ZipFile(site / "fakepack_b" / "data" / "bundle.zip", "w") as zf:
        zf.writestr("inner/tags.csv", "index,name\n0,Speech\n")
    monkeypatch.syspath_prepend(str(site))
    return site


def make_pack(sha=None, size=None) -> Pack:
    whole = PART1 + PART2
    return Pack(
        name="fake",
        role="asr",
        packages=(("fakepack_a", "fakepack-a==1.0"), ("fakepack_b", "fakepack-b==2.0")),
        files=(
            PackFile("model.bin", (Part("fakepack_a", "data/model.bin.part"), Part("fakepack_b", "data/model.bin.part")),
                     sha256=sha or hashlib.sha256(whole).hexdigest(), size=size or len(whole)),
            PackFile("config.json", (Part("fakepack_a", "data/config.json"),)),
            PackFile("tags.csv", (Part("fakepack_b", "data/bundle.zip", member="inner/tags.csv"),)),
        ),
        licence="test",
        source="test",
    )


def test_a_split_pack_is_joined_once_into_the_cache(fake_packages, tmp_path, monkeypatch):
    pack = make_pack()
    folder = pack_dir(pack, tmp_path / "cache")
    assert (folder / "model.bin").read_bytes() == PART1 + PART2
    assert (folder / "config.json").read_text() == '{"layers": 2}' and (folder / "tags.csv").read_text().startswith("index,name")
    assert [p.name for p in folder.parent.iterdir() if p.name.endswith(".tmp")] == []
    monkeypatch.setattr(packs, "_assemble", lambda *a: pytest.fail("an assembled pack is not assembled again"))
    assert pack_dir(pack, tmp_path / "cache") == folder
    assert pack_status(pack, tmp_path / "cache")["assembled"] is True


def test_a_missing_package_is_named_with_the_install_command(fake_packages, tmp_path):
    pack = make_pack()
    missing = Pack(pack.name, pack.role, (("fakepack_a", "fakepack-a==1.0"), ("not_installed_pack", "not-installed-pack==3.1")),
                   (PackFile("x.bin", (Part("not_installed_pack", "x.bin"),)),), "test", "test")
    with pytest.raises(PackError, match=r"not installed: pip install 'not-installed-pack==3\.1'$"):
        pack_dir(missing, tmp_path / "cache")
    assert pack_status(missing, tmp_path / "cache")["installed"] is False
    assert not (tmp_path / "cache" / "packs").exists() or not any((tmp_path / "cache" / "packs").glob("fake-*"))


def test_a_truncated_or_corrupt_pack_is_refused_and_leaves_nothing(fake_packages, tmp_path):
    (fake_packages / "fakepack_b" / "data" / "model.bin.part").write_bytes(PART2[:-10])
    with pytest.raises(PackError, match="truncated.*--force-reinstall"):
        pack_dir(make_pack(), tmp_path / "cache")
    (fake_packages / "fakepack_b" / "data" / "model.bin.part").write_bytes(PART2[:-10] + b"X" * 10)
    with pytest.raises(PackError, match="fails its checksum"):
        pack_dir(make_pack(), tmp_path / "cache")
    leftovers = list((tmp_path / "cache" / "packs").iterdir())
    assert all(p.name.endswith(".lock") for p in leftovers)  # no half-written folder, no temporary one


def test_an_assembled_file_that_lost_bytes_is_assembled_again(fake_packages, tmp_path):
    pack = make_pack()
    folder = pack_dir(pack, tmp_path / "cache")
    (folder / "model.bin").write_bytes(b"short")
    assert (pack_dir(pack, tmp_path / "cache") / "model.bin").read_bytes() == PART1 + PART2


def test_every_bundled_pack_checks_its_weights():
    for pack in PACKS.values():
        weights = [f for f in pack.files if f.name.endswith((".bin", ".onnx", ".data", ".gguf", ".pth"))]
        assert weights and all(f.sha256 and len(f.sha256) == 64 and f.size for f in weights), pack.name
        modules = {p.module for f in pack.files for p in f.parts}
        assert modules == {m for m, _ in pack.packages} and all("==" in req for _, req in pack.packages), pack.name
