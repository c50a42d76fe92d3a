"""Symptoms and causes naming each other across files."""

from __future__ import annotations

import shutil
from pathlib import Path

from paths import DIAGNOSIS

from failref.domain.references.folder import read_folder
from failref.domain.references.graph import linked, symptom_causes


def folder_with(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    folder = tmp_path / "references"
    shutil.copytree(DIAGNOSIS, folder)
    for name, (old, new) in edits.items():
        path = folder / name
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_symptom_links_its_candidate_causes() -> None:
    contents = read_folder(DIAGNOSIS)
    links = symptom_causes(contents.references)
    assert links == {"fx-timeout": frozenset({"fx-slow-link"})}
    assert linked(links, "fx-slow-link", "fx-timeout")
    assert not linked(links, "fx-serving", "fx-timeout")
    assert contents.problems == []


def test_a_cause_may_name_a_symptom_that_does_not_list_it(tmp_path: Path) -> None:
    edits = {"fx-serving.md": ("updated:", "symptoms: [fx-timeout]\nupdated:")}
    contents = read_folder(folder_with(tmp_path, edits))
    assert symptom_causes(contents.references)["fx-timeout"] == {"fx-slow-link", "fx-serving"}
    assert contents.problems == []


def test_naming_a_symptom_twice_is_an_error(tmp_path: Path) -> None:
    edits = {"fx-slow-link.md": ("updated:", "symptoms: [fx-timeout]\nupdated:")}
    (problem,) = read_folder(folder_with(tmp_path, edits)).problems
    assert problem.severity == "error"
    assert str(problem).startswith(
        "references/fx-slow-link.md:1: symptoms: 'fx-timeout' already lists this cause"
    )


def test_a_symptom_that_does_not_exist_yet_says_where_the_lines_will_go(tmp_path: Path) -> None:
    edits = {"fx-serving.md": ("updated:", "symptoms: [inference-engine-dead]\nupdated:")}
    (problem,) = read_folder(folder_with(tmp_path, edits)).problems
    assert problem.severity == "warning"
    assert "symptom 'inference-engine-dead' does not exist yet" in str(problem)


def test_naming_a_cause_as_a_symptom_is_an_error(tmp_path: Path) -> None:
    edits = {"fx-serving.md": ("updated:", "symptoms: [fx-slow-link]\nupdated:")}
    (problem,) = read_folder(folder_with(tmp_path, edits)).problems
    assert str(problem) == (
        "references/fx-serving.md:1: symptoms: 'fx-slow-link' is not a symptom (kind: symptom)"
    )


def test_a_candidate_linking_nowhere_is_ranked_inline_with_a_warning(tmp_path: Path) -> None:
    edits = {"fx-timeout.md": ("[A slow link](fx-slow-link.md)", "[A slow link](fx-gone.md)")}
    contents = read_folder(folder_with(tmp_path, edits))
    messages = [str(p) for p in contents.problems]
    assert any("candidate links to unknown reference 'fx-gone'" in m for m in messages)
    assert "fx-timeout" in {r.id for r in contents.references}


def test_a_candidate_linking_a_symptom_is_an_error(tmp_path: Path) -> None:
    edits = {"fx-timeout.md": ("[A slow link](fx-slow-link.md)", "[Itself](fx-timeout.md)")}
    problems = read_folder(folder_with(tmp_path, edits)).problems
    assert any(
        p.severity == "error" and "candidate 'fx-timeout' is a symptom" in str(p) for p in problems
    )


WRAPPER = """---
id: fx-summary
kind: symptom
title: The launcher says a rank failed
summary: A launcher's summary printed on top of the real error.
category: training
tags: [{tags}]
frameworks: [pytorch]
phases: [training]
updated: 2026-12-07
---

## Message

```text
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
```

Seen in [pytorch/pytorch#118369](https://github.com/pytorch/pytorch/issues/118369).

## Context

The rank's own log holds the error.

## Candidate causes

1. **[A collective timed out]({target}.md).** The watchdog aborted the rank.
2. **A crash.** The rank died on a signal.

## Evidence checks

- Read the failed rank's log: a watchdog line **confirms** candidate 1.

## Sources

- [pytorch/pytorch#118369](https://github.com/pytorch/pytorch/issues/118369) — a timeout.
"""


def test_a_wrapper_may_list_the_symptoms_it_wraps(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {})
    page = WRAPPER.format(tags="torchrun, wrapper", target="fx-timeout")
    (folder / "fx-summary.md").write_text(page, encoding="utf-8")
    contents = read_folder(folder)
    assert contents.problems == []
    assert symptom_causes(contents.references)["fx-summary"] == {"fx-timeout"}


def test_only_a_wrapper_may_list_a_symptom_and_never_another_wrapper(tmp_path: Path) -> None:
    edits = {"fx-timeout.md": ("tags: [nccl, watchdog, timeout]", "tags: [timeout, wrapper]")}
    folder = folder_with(tmp_path, edits)
    for name, tags in (("fx-summary.md", "torchrun"), ("fx-other.md", "wrapper")):
        page = WRAPPER.format(tags=tags, target="fx-timeout").replace("fx-summary", name[:-3])
        (folder / name).write_text(page, encoding="utf-8")
    problems = [str(p) for p in read_folder(folder).problems]
    assert len(problems) == 2
    assert all("candidate 'fx-timeout' is a symptom" in problem for problem in problems)
