"""Benchmark the matcher against its baselines, back to back in one run.

    .venv/bin/python bench/bench_matcher.py [--quick]

Every figure is printed beside its anchor (measured in the same run) and its target.

Prints raw figures and the ratios issue 4 asks for: single-message p50/p99 against one
`rapidfuzz.process.extract(..., scorer=fuzz.token_set_ratio, limit=10)` over the same
message strings, recall@5 of the prefilter against an exhaustive scan, a whole-log scan
against `LC_ALL=C grep -E -c -f`, a high-entropy paste against the normalise-and-dedupe
pass alone, and bad input. Each measurement is time-boxed to stay under 20 s; when a
box ends a loop early the figure says how many samples it rests on. Loopback only: no
network, everything is generated here from the shipped references.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rapidfuzz import fuzz, process

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_inputs import bad_input, redaction  # noqa: E402
from bench_scale import index_updates, million_lines, normalising, row  # noqa: E402

from failref.domain.matching.authoring.labelled import read_labelled  # noqa: E402
from failref.domain.matching.index.match_index import MatchIndex, build_index, warm  # noqa: E402
from failref.domain.matching.index.pieces import comparison_key  # noqa: E402
from failref.domain.matching.logs.scan import scan_log  # noqa: E402
from failref.domain.matching.messages.match import match_text  # noqa: E402
from failref.domain.matching.reading.grouping import group_log_lines  # noqa: E402
from failref.domain.matching.reading.normalize import normalize_line  # noqa: E402
from failref.domain.references.document import Message, Reference  # noqa: E402
from failref.domain.references.folder import read_folder, reference_files  # noqa: E402
from failref.services.library import settle_heap  # noqa: E402

SEED = 20261129
TIME_BOX_S = 18.0
QUERIES = 1_000
# At the shipped references a query takes about a millisecond, and one slow tick of the
# machine moves a p99 over single runs by a tenth of the kernel's: each query is timed
# this many times there (alternating which goes first), and the p99 of each query's
# median run is printed beside the target's, which is over first runs. Larger indexes are
# timed once per query (their time box holds a few hundred queries).
REPEATS_SHIPPED = 3
LOG_LINES = 100_000
PLACEHOLDER_RE = re.compile(r"<([a-z][a-z_-]*)>")
WORD_RE = re.compile(r"\b[A-Za-z]{4,}\b")
FRONT_ID_RE = re.compile(r"^id: (\S+)$", re.M)
ALIASES_RE = re.compile(r"^aliases: .*$", re.M)
TITLE_RE = re.compile(r"^title: (.+)$", re.M)
MESSAGE_SECTION_RE = re.compile(r"^## Message\n.*?(?=^## )", re.M | re.S)
TEXT_BLOCK_RE = re.compile(r"```text\n(.*?)\n```", re.S)
SYLLABLES = ("ka", "ro", "vel", "min", "tor", "shi", "ban", "qu", "lex", "dor", "pri", "zan")


def load_references() -> list[Reference]:
    """The shipped references, or a small built-in set while the folder is still empty."""
    return read_folder(ROOT / "references").references or fallback_references()


def fallback_references() -> list[Reference]:
    texts = [
        "[Rank <n>] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=<n>, "
        "OpType=ALLREDUCE) ran for <n> milliseconds before timing out.",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <n> MiB.",
        "[deepspeed] OVERFLOW! Rank <n> Skipping step. Attempted loss scale: <n>, reducing to <n>",
    ]
    return [make_reference(f"fallback-{n}", text, text) for n, text in enumerate(texts)]


def make_reference(ref_id: str, title: str, *messages: str) -> Reference:
    return Reference.model_validate(
        {
            "id": ref_id,
            "title": title,
            "summary": title + ".",
            "category": "training",
            "tags": ["bench"],
            "frameworks": ["pytorch"],
            "phases": ["training"],
            "updated": "2026-11-29",
            "messages": [
                {"text": text, "line": 1, "seen_in_markdown": "", "seen_in_url": None}
                for text in messages
            ],
            "context_markdown": "",
            "causes": [],
            "checks": [],
            "sources": [],
            "path": f"references/{ref_id}.md",
            "content_hash": "0" * 64,
        }
    )


def synthetic_references(
    real: Sequence[Reference], count: int, rng: random.Random
) -> list[Reference]:
    """`count` references made from the real ones: same shape, some words swapped."""
    vocabulary = sorted(
        {word for ref in real for m in ref.messages for word in WORD_RE.findall(m.text)}
    )
    made: list[Reference] = []
    for number in range(count):
        base = real[number % len(real)]
        chosen = base.messages[: 1 + number % 2] or base.messages
        messages = tuple(
            Message(
                text=mutate(message.text, vocabulary, rng),
                line=message.line,
                seen_in_markdown="",
                seen_in_url=None,
            )
            for message in chosen
        )
        made.append(
            base.model_copy(
                update={
                    "id": f"{base.id}-syn{number}",
                    "title": mutate(base.title, vocabulary, rng),
                    "messages": messages,
                }
            )
        )
    return made


def synthetic_folder(folder: Path, count: int, rng: random.Random) -> Path:
    """`count` reference files made from the shipped ones as `synthetic_references` makes
    its references (new id, no aliases, title and message lines with words swapped), written
    to `folder` for a run that loads them as the app does."""
    sources = [path.read_text(encoding="utf-8") for path in reference_files(ROOT / "references")]
    vocabulary = sorted({word for text in sources for word in WORD_RE.findall(text)})
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        text = sources[number % len(sources)]
        ref_id = FRONT_ID_RE.search(text)
        if ref_id is None:
            raise ValueError(f"a shipped reference has no id line: {text[:80]!r}")
        new_id = f"{ref_id.group(1)}-syn{number}"
        text = FRONT_ID_RE.sub(f"id: {new_id}", text, count=1)
        text = ALIASES_RE.sub("aliases: []", text, count=1)
        text = TITLE_RE.sub(lambda found: "title: " + mutate(found.group(1), vocabulary, rng), text)
        text = MESSAGE_SECTION_RE.sub(
            lambda section: TEXT_BLOCK_RE.sub(
                lambda block: "```text\n" + mutate(block.group(1), vocabulary, rng) + "\n```",
                section.group(0),
            ),
            text,
            count=1,
        )
        (folder / f"{new_id}.md").write_text(text, encoding="utf-8")
    return folder


def mutate(text: str, vocabulary: Sequence[str], rng: random.Random) -> str:
    """Swap one to three words for others of the corpus and add a made-up identifier."""
    words = text.split(" ")
    for _ in range(rng.randint(1, 3)):
        position = rng.randrange(len(words))
        if WORD_RE.fullmatch(words[position]):
            words[position] = rng.choice(vocabulary)
    identifier = "".join(rng.choice(SYLLABLES) for _ in range(3))
    words.insert(rng.randrange(len(words) + 1), identifier.capitalize())
    return " ".join(words)


def fill(template: str, rng: random.Random) -> str:
    """A real-looking line from a template: placeholders replaced by made-up values."""
    values: dict[str, Callable[[], str]] = {
        "n": lambda: str(rng.randint(0, 100_000)),
        "hex": lambda: hex(rng.getrandbits(40)),
        "path": lambda: f"/data/run{rng.randint(1, 99)}/ckpt/model.py",
        "ip": lambda: f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        "host": lambda: f"node{rng.randint(1, 64)}.cluster.internal",
        "uuid": lambda: "123e4567-e89b-12d3-a456-426614174000",
        "shape": lambda: f"[{rng.randint(1, 64)}, {rng.randint(1, 8192)}]",
    }

    def replace(found: re.Match[str]) -> str:
        maker = values.get(found.group(1))
        return maker() if maker else rng.choice(["alpha", "llama", "worker", "default"])

    return PLACEHOLDER_RE.sub(replace, template)


def real_queries(references: Sequence[Reference], rng: random.Random) -> list[str]:
    """Labelled lines plus reference messages filled in and prefixed like real logs."""
    pool: list[str] = []
    pool.extend(line.text for line in read_labelled(ROOT / "tests" / "data" / "labelled"))
    prefixes = ("", "[rank3]:", "2024-05-01 12:00:01,123 ERROR ", "INFO 05-01 12:00:01 [x.py:12] ")
    for reference in references:
        for message in reference.messages:
            line = fill(message.text.splitlines()[0], rng)
            pool.append(rng.choice(prefixes) + line)
    return [rng.choice(pool) for _ in range(QUERIES)]


def percentile(samples: Sequence[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def single_message(references: Sequence[Reference], queries: Sequence[str], label: str) -> None:
    """p50/p99 of match_text against the token_set_ratio kernel, and recall@5.

    Kernel and product run back to back on each query, alternating which goes first, so
    both see the same machine (other jobs, caches) and the same garbage collector. The
    index's views are worked out before the first query, as the server's warming thread
    does after each load (`app/services/warming.py`); the time it takes is printed.
    """
    started = time.perf_counter()
    index = build_index(references)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    warm(index)
    warm_s = time.perf_counter() - started
    settle_heap()
    messages = list(index.entry_keys)
    repeats = REPEATS_SHIPPED if label == "shipped" else 1
    kernel, product = timed_runs(index, messages, queries, repeats)
    recall = recall_at_5(index, queries)
    # Issue 20 sets the p99 at the shipped references and at 10,000; 1,000 is shown only.
    target = {"shipped": "<= 1.5x", "10,000": "<= 0.30x"}.get(label, "")
    timed = sum(1 for runs in kernel if runs)
    print(
        f"single message @ {label}: {len(references)} refs, {len(messages)} message lines, "
        f"index built in {build_s:.2f} s, views worked out in {warm_s:.2f} s, "
        f"{timed} queries"
    )
    first_kernel = [runs[0] for runs in kernel if runs]
    first_product = [runs[0] for runs in product if runs]
    kernel_p50, product_p50 = percentile(first_kernel, 0.5), percentile(first_product, 0.5)
    row("p50", f"{product_p50:.3f} ms", f"kernel {kernel_p50:.3f} ms", "")
    kernel_p99, product_p99 = percentile(first_kernel, 0.99), percentile(first_product, 0.99)
    ratio = product_p99 / kernel_p99
    row("p99", f"{product_p99:.3f} ms = {ratio:.2f}x", f"kernel {kernel_p99:.3f} ms", target)
    # The first run of a query pays what only a new text or context pays (its stems, its
    # context's verdicts); the median of its runs is steadier against the machine's ticks.
    steady = [n for n, runs in enumerate(kernel) if len(runs) == repeats]
    if repeats > 1 and steady:
        kernel_p99 = percentile([statistics.median(kernel[n]) for n in steady], 0.99)
        product_p99 = percentile([statistics.median(product[n]) for n in steady], 0.99)
        row(
            f"p99, median of {repeats} runs each",
            f"{product_p99:.3f} ms = {product_p99 / kernel_p99:.2f}x",
            f"kernel {kernel_p99:.3f} ms",
            "shown only",
        )
    row("recall@5 vs exhaustive", f"{recall[0]:.4f}", f"{recall[1]} queries", ">= 0.99")


def timed_runs(
    index: MatchIndex, messages: Sequence[str], queries: Sequence[str], repeats: int
) -> tuple[list[list[float]], list[list[float]]]:
    """Each query's kernel and product times (ms), `repeats` rounds over the queries with
    the two alternating which goes first, until the time box ends."""
    kernel: list[list[float]] = [[] for _ in queries]
    product: list[list[float]] = [[] for _ in queries]
    started = time.perf_counter()
    for round_number in range(repeats):
        for number, query in enumerate(queries):
            key = comparison_key(normalize_line(query))
            for which in (0, 1) if (number + round_number) % 2 else (1, 0):
                begin = time.perf_counter()
                if which == 0:
                    process.extract(key, messages, scorer=fuzz.token_set_ratio, limit=10)
                else:
                    match_text(index, query)
                runs = kernel if which == 0 else product
                runs[number].append((time.perf_counter() - begin) * 1000)
            if time.perf_counter() - started > TIME_BOX_S:
                return kernel, product
    return kernel, product


def recall_at_5(index: MatchIndex, queries: Sequence[str]) -> tuple[float, int]:
    found = wanted = 0
    started, used = time.perf_counter(), 0
    for query in queries:
        exhaustive = {m.id for m in match_text(index, query, exhaustive=True).matches}
        fast = {m.id for m in match_text(index, query).matches}
        found += len(exhaustive & fast)
        wanted += len(exhaustive)
        used += 1
        if time.perf_counter() - started > TIME_BOX_S:
            break
    return (found / wanted if wanted else 1.0), used


def realistic_log(
    references: Sequence[Reference], rng: random.Random, line_count: int = LOG_LINES
) -> str:
    """A training and serving log: repeated templates with varying numbers, a few failures."""
    failures = [fill(m.text.splitlines()[0], rng) for r in references[:6] for m in r.messages[:1]]
    lines = [
        f"node{rng.randint(1, 8)}:{rng.randint(1000, 9999)}:{rng.randint(1000, 9999)} [0] "
        f"NCCL INFO Channel {c:02d}/0 : 0[0] -> 1[1] via P2P/IPC"
        for c in range(32)
    ]
    for step in range(line_count - len(lines)):
        roll = rng.random()
        stamp = f"2024-05-01 12:{step // 6000 % 60:02d}:{step // 100 % 60:02d},{step % 1000:03d}"
        if roll < 0.55:
            lines.append(
                f"{stamp} INFO step {step} loss {rng.uniform(1, 3):.4f} lr {rng.uniform(1, 9):.2e} "
                f"grad_norm {rng.uniform(0, 2):.3f} tokens/s {rng.randint(90000, 120000)}"
            )
        elif roll < 0.8:
            lines.append(
                f"INFO 05-01 12:00:{step % 60:02d} [loggers.py:116] Engine 000: Avg prompt "
                f"throughput: {rng.uniform(0, 900):.1f} tokens/s, Avg generation throughput: "
                f"{rng.uniform(0, 90):.1f} tokens/s, Running: {rng.randint(0, 64)} reqs, "
                f"Waiting: {rng.randint(0, 9)} reqs, GPU KV cache usage: {rng.uniform(0, 99):.1f}%"
            )
        elif roll < 0.95:
            lines.append(
                f"[rank{rng.randint(0, 7)}]: {stamp} DEBUG dataloader worker {rng.randint(0, 15)} "
                f"fetched batch {step} in {rng.uniform(0, 40):.2f} ms"
            )
        elif roll < 0.9995:
            lines.append(f"{stamp} WARNING checkpoint shard {rng.randint(0, 63)} saved late")
        else:
            lines.append(rng.choice(failures))
    return "\n".join(lines) + "\n"


def high_entropy_log(rng: random.Random) -> str:
    """Every line distinct: random words and tokens, no shared template."""
    letters = string.ascii_lowercase
    return (
        "\n".join(
            " ".join(
                "".join(rng.choice(letters) for _ in range(rng.randint(3, 9)))
                for _ in range(rng.randint(5, 12))
            )
            for _ in range(LOG_LINES)
        )
        + "\n"
    )


def grep_patterns(references: Sequence[Reference]) -> list[str]:
    """Each message line's longest literal fragment between placeholders, as ERE."""
    patterns: set[str] = set()
    for reference in references:
        for message in reference.messages:
            for line in message.text.splitlines():
                fragments = [part.strip() for part in PLACEHOLDER_RE.split(line)[::2]]
                longest = max(fragments, key=len, default="")
                if len(longest) >= 8:
                    patterns.add(re.sub(r"([][\\.^$*+?(){}|])", r"\\\1", longest))
    return sorted(patterns)


def best_of(runs: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        run()
        times.append(time.perf_counter() - begin)
    return min(times)


def whole_log(references: Sequence[Reference], rng: random.Random) -> None:
    """A realistic log against grep, and a high-entropy paste against normalise+dedupe."""
    index = build_index(references)
    settle_heap()
    log = realistic_log(references, rng)
    with tempfile.TemporaryDirectory() as folder:
        log_path, pattern_path = Path(folder) / "train.log", Path(folder) / "patterns"
        log_path.write_text(log, encoding="utf-8")
        pattern_path.write_text("\n".join(grep_patterns(references)) + "\n", encoding="utf-8")
        grep = shutil.which("grep")
        command = [grep or "grep", "-E", "-c", "-f", str(pattern_path), str(log_path)]
        environment = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
        grep_s = best_of(3, lambda: subprocess.run(command, env=environment, capture_output=True))
        grep_count = subprocess.run(command, env=environment, capture_output=True, text=True)
    scan_s = best_of(2, lambda: scan_log(index, log))
    result = scan_log(index, log)
    print(
        f"whole log @ {len(references)} refs: {result.lines} lines, {result.templates} "
        f"templates, {result.fuzzy_templates} fuzzy, {len(result.hits)} hits, "
        f"{len(result.diagnosis.roots)} roots (grep counted {grep_count.stdout.strip()} lines)"
    )
    row(
        "scan",
        f"{scan_s * 1000:,.0f} ms = {scan_s / grep_s:.1f}x",
        f"grep -E -c -f {grep_s * 1000:,.0f} ms",
        "<= 4x",
    )
    noisy = high_entropy_log(rng)
    lines = noisy.splitlines()
    dedupe_s = best_of(2, lambda: group_log_lines(lines))
    scan_noisy_s = best_of(2, lambda: scan_log(index, noisy))
    noisy_result = scan_log(index, noisy)
    print(
        f"high-entropy paste: {noisy_result.lines} lines, {noisy_result.templates} templates, "
        f"fuzzy {noisy_result.fuzzy_templates} (cap {noisy_result.fuzzy_cap}, "
        f"capped {noisy_result.capped})"
    )
    row(
        "scan",
        f"{scan_noisy_s * 1000:,.0f} ms = {scan_noisy_s / dedupe_s:.2f}x",
        f"normalise+dedupe {dedupe_s * 1000:,.0f} ms",
        "scan <= 1,500 ms",
    )
    normalising(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="skip the 10,000-reference and million-line runs"
    )
    args = parser.parse_args()
    rng = random.Random(SEED)
    real = load_references()
    queries = real_queries(real, rng)
    print(f"{len(real)} shipped references, {len(queries)} queries\n")
    sizes = [("shipped", real), ("1,000", synthetic_references(real, 1_000, rng))]
    if not args.quick:
        sizes.append(("10,000", synthetic_references(real, 10_000, rng)))
    for label, references in sizes:
        single_message(references, queries, label)
    print()
    whole_log(sizes[1][1], rng)
    print()
    index_updates(sizes[-1][1])
    if not args.quick:
        print()
        with tempfile.TemporaryDirectory() as folder:
            thousand = synthetic_folder(Path(folder) / "references", 1_000 - len(real), rng)
            for path in reference_files(ROOT / "references"):
                shutil.copy(path, thousand / path.name)
            folders = [("shipped", ROOT / "references"), ("1,000", thousand)]
            million_lines(lambda count: realistic_log(real, rng, count), folders)
    print("\nbad input @ 1,000 refs:")
    bad_input(sizes[1][1], rng)
    redaction()


if __name__ == "__main__":
    main()
