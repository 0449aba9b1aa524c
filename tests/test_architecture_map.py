"""ARCHITECTURE.md's "Where things live" block against the tree, both ways: every module of
perftui is named there, and every file and folder named there exists.

The rule: a package's `__init__.py` is its face and goes by its folder's name; every other
module is named in the block of its folder (a line whose left column names the folder, down
to the next folder at the same depth or above) by its file name (`client.py`), by a path from
perftui/ (`tune/worker.py`), or by a family of names (`openvino_*`). A line whose left column
names several folders (`projects/ benchmark/ ...`) opens a block for each of them, and in it
`projects/` followed by names gives those names to that one folder.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "perftui"
DESCRIPTION = 20
"""Lines indented this far or more continue the description of the line above."""

_FILE = re.compile(r"(?<![\w./<-])((?:\w+/)*[\w*]+\.py|\w+_\*)(?![\w/])")
_TOKEN = re.compile(r"(?<![\w./<-])(\w+)/(?=\s)|" + _FILE.pattern)
_FOLDER = re.compile(r"^(\w+/)(\s+\w+/)*(?=\s|$)")


def where_things_live() -> list[str]:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Where things live", 1)[1]
    block = section.split("```", 2)[1]
    return [line for line in block.splitlines() if line.strip()]


def named() -> tuple[dict[Path, set[str]], set[Path]]:
    """Folder -> the names (file names, families) its block mentions; the folders named."""
    stack: list[tuple[int, list[Path]]] = []
    mentions: dict[Path, set[str]] = {}
    folders: set[Path] = set()
    current: list[Path] = []
    focus: list[Path] = []
    for line in where_things_live():
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        if indent < DESCRIPTION:
            while stack and stack[-1][0] >= indent:
                stack.pop()
            parent = stack[-1][1][0] if stack else ROOT
            opened = _FOLDER.match(body)
            if opened:
                current = [parent / name for name in opened.group(0).split()]
                stack.append((indent, current))
                folders.update(current)
            else:
                current = [parent]
            focus = current
        for token in _TOKEN.finditer(body):
            switched = [f for f in current if token.group(1) and f.name == token.group(1)]
            if switched:
                focus = switched
            elif token.group(2):
                for folder in focus:
                    mentions.setdefault(folder, set()).add(token.group(2))
    return mentions, folders


def _covers(folder: Path, mention: str, module: Path) -> bool:
    if "/" in mention:
        return PACKAGE / mention == module
    if mention.endswith("*"):
        return module.parent == folder and module.name.startswith(mention[:-1])
    return folder / mention == module


def test_every_module_is_named_in_its_folder_s_block() -> None:
    mentions, _ = named()
    modules = [p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "__init__.py"]
    missing = [
        str(module.relative_to(ROOT))
        for module in modules
        if not any(
            _covers(folder, mention, module)
            for folder, names in mentions.items()
            for mention in names
        )
    ]
    assert not missing, "not in ARCHITECTURE.md's map: " + ", ".join(missing)


def test_every_name_in_the_map_exists() -> None:
    mentions, folders = named()
    gone = [str(f.relative_to(ROOT)) for f in sorted(folders) if not f.is_dir()]
    for folder, names in sorted(mentions.items()):
        for mention in sorted(names):
            if "/" in mention:
                found = (PACKAGE / mention).is_file()
            elif mention.endswith("*"):
                found = any(folder.glob(mention + ".py"))
            else:
                found = (folder / mention).is_file()
            if not found:
                gone.append(f"{mention} (in {folder.relative_to(ROOT)}/)")
    assert not gone, "named in ARCHITECTURE.md's map but missing: " + ", ".join(gone)


def test_the_map_is_read_as_folders_and_names() -> None:
    """The reader itself: a sub-folder's names are its own, a family matches its files."""
    mentions, folders = named()
    assert {PACKAGE / "domain" / "forms", PACKAGE / "tui" / "kit" / "dialogs"} <= folders
    assert "bench.py" in mentions[PACKAGE / "domain" / "forms"]
    assert "records.py" in mentions[PACKAGE / "domain"]
    assert _covers(PACKAGE / "engines", "ort_*", PACKAGE / "engines" / "ort_engine.py")
