"""The lock (requirements/) is what the README installs, and it still answers pyproject.toml: every dependency of
every extra pinned with hashes inside its range, the three locks agreeing on each version.  After editing a range,
`.ci/lock` refreshes them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ("play", "serve", "test")


def pins(lock: str) -> dict[str, tuple[str, int]]:
    """Package -> (version, how many hashes) in ``requirements/<lock>.txt``; a package pinned twice under exclusive
    markers keeps its first version."""
    found: dict[str, tuple[str, int]] = {}
    name = None
    for line in (ROOT / "requirements" / f"{lock}.txt").read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==([^ ;\\]+)", line)
        if match:
            name = canonicalize_name(match[1])
            if name not in found:
                found[name] = (match[2], 0)
        elif name and line.strip().startswith("--hash=sha256:"):
            version, hashes = found[name]
            found[name] = (version, hashes + 1)
    return found


def requirements(*extras: str) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = list(project["project"]["dependencies"])
    for extra in extras:
        names += project["project"]["optional-dependencies"][extra]
    return [Requirement(name) for name in names]


@pytest.mark.parametrize("lock, extras", [("play", ()), ("serve", ("ssh", "web", "postgres")),
                                          ("test", ("test", "ssh", "web", "postgres"))])
def test_every_dependency_is_pinned_with_hashes_inside_its_range(lock, extras):
    pinned = pins(lock)
    for requirement in requirements(*extras) + [Requirement("setuptools>=68")]:
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in requirements/{lock}.txt: run .ci/lock"
        version, _ = pinned[name]
        assert requirement.specifier.contains(version, prereleases=True), \
            f"{name}=={version} in requirements/{lock}.txt is outside {requirement.specifier}: run .ci/lock"
    assert all(hashes > 0 for _, hashes in pinned.values())


def test_the_locks_agree_on_every_version():
    test = pins("test")
    for lock in ("play", "serve"):
        for name, (version, _) in pins(lock).items():
            assert test.get(name, (version,))[0] == version, f"{name}: {lock} has {version}, test has {test[name][0]}"


def test_both_readme_commands_install_from_the_lock_with_hashes():
    readme = (ROOT / "README.md").read_text().splitlines()
    for heading, lock in (("# set up and play", "play"), ("# set up and run the whole test suite", "test")):
        command = readme[readme.index(heading) + 1]
        assert f"--require-hashes -r requirements/{lock}.txt" in command
        assert "--no-deps" in command.split(f"requirements/{lock}.txt", 1)[1]  # the project itself adds nothing unpinned
