"""`checkpoint-stall`: the training time a checkpoint save blocks, synchronous or asynchronous.

How often to save is the other half of the trade-off; `checkpoint-interval` (Young/Daly)
answers that one."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .extract import ExtractionRule
from .limits import MAX_BANDWIDTH_GBPS, MAX_SIZE_GB, MIN_BANDWIDTH_GBPS
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "checkpoint-stall"
MODES = ("sync", "async")
SECONDS_PER_MINUTE = 60.0
HOURS_PER_DAY = 24.0
# 1 MB is smaller than any real checkpoint and keeps every save time above zero.
MIN_CHECKPOINT_GB = 0.001
# 0.01 minute (0.6 s) of training between saves is the shortest interval worth modelling.
MIN_INTERVAL_MINUTES = 0.01
# A week of training between two saves is beyond any job that checkpoints at all.
MAX_INTERVAL_MINUTES = 10_080.0
# A collective timeout of a week or more is no timeout at all.
MAX_TIMEOUT_S = 604_800.0


def blocking_seconds(
    mode: str, write_seconds: float, copy_seconds: float, interval_seconds: float
) -> float:
    """Seconds training waits per save.

    sync: the whole write. async: the device-to-host copy, plus whatever is left of the
    previous background write when the next save comes due (one save in flight at a time).
    """
    if mode == "sync":
        return write_seconds
    return copy_seconds + max(0.0, write_seconds - interval_seconds)


def _compute(values: InputValues) -> dict[str, OutputValue]:
    size_gb = values.number("checkpoint_gb")
    write_seconds = size_gb / values.number("write_gbps")
    copy_seconds = size_gb / values.number("copy_gbps")
    interval_seconds = values.number("interval_minutes") * SECONDS_PER_MINUTE
    blocked = blocking_seconds(values.choice("mode"), write_seconds, copy_seconds, interval_seconds)
    lost = blocked / (interval_seconds + blocked)
    timeout_s = values.number("timeout_s")
    return {
        "write_seconds": write_seconds,
        "blocking_seconds": blocked,
        "lost_fraction": lost,
        "lost_hours_per_day": lost * HOURS_PER_DAY,
        "timeout_share": blocked / timeout_s,
        "outlasts_timeout": blocked > timeout_s,
    }


def _bandwidth(name: str, label: str, default: float, help_text: str) -> InputSpec:
    return InputSpec(
        name,
        label,
        "GB/s",
        "number",
        default,
        minimum=MIN_BANDWIDTH_GBPS,
        maximum=MAX_BANDWIDTH_GBPS,
        help=help_text,
    )


INPUTS = (
    InputSpec(
        "checkpoint_gb",
        "Checkpoint size",
        "GB",
        "number",
        100.0,
        minimum=MIN_CHECKPOINT_GB,
        maximum=MAX_SIZE_GB,
        help="Everything one save writes, all ranks together: weights plus optimizer state.",
    ),
    _bandwidth(
        "write_gbps",
        "Aggregate write bandwidth",
        1.0,
        "What the writers reach together on the checkpoint storage; one rank writing to a "
        "network filesystem gets that one client's rate.",
    ),
    InputSpec(
        "interval_minutes",
        "Training between saves",
        "min",
        "number",
        30.0,
        minimum=MIN_INTERVAL_MINUTES,
        maximum=MAX_INTERVAL_MINUTES,
        help="Training time from the end of one save to the start of the next.",
    ),
    InputSpec(
        "mode",
        "Save mode",
        "",
        "choice",
        "sync",
        choices=MODES,
        help=(
            "sync: training waits for the write (torch.save, a plain dcp.save). async: it "
            "waits only for the copy to host memory (dcp.async_save, Megatron --async-save)."
        ),
    ),
    _bandwidth(
        "copy_gbps",
        "Aggregate device-to-host copy bandwidth",
        16.0,
        "Async only: how fast all ranks together stage the state into CPU memory (pinned "
        "buffers copy faster than pageable ones).",
    ),
    InputSpec(
        "timeout_s",
        "Collective timeout",
        "s",
        "number",
        600.0,
        minimum=1.0,
        maximum=MAX_TIMEOUT_S,
        help="The process group's timeout: ranks that reach a collective while the save "
        "blocks wait in it, and the NCCL watchdog ends the job past this (it prints "
        "Timeout(ms)=600000 for 600 s).",
    ),
)

OUTPUTS = (
    OutputSpec(
        "write_seconds",
        "Write time per save",
        "s",
        "Checkpoint size / write bandwidth: the stall itself when saving synchronously.",
    ),
    OutputSpec(
        "blocking_seconds",
        "Training blocked per save",
        "s",
        "Async: copy time, plus the wait when a write outlasts the interval.",
    ),
    OutputSpec(
        "lost_fraction",
        "Share of wall-clock lost",
        "fraction",
        "Blocked time / (interval + blocked time).",
    ),
    OutputSpec("lost_hours_per_day", "Hours lost per day", "h", "24 × the share lost."),
    OutputSpec(
        "timeout_share",
        "Blocked time against the collective timeout",
        "fraction",
        "Blocked per save / timeout: above 100% the waiting ranks time out.",
    ),
    OutputSpec("outlasts_timeout", "Outlasts the collective timeout", "", "blocked > timeout."),
)

# PyTorch's NCCL watchdog line names the timeout of the collective that expired
# (tests/data/labelled/nccl-collective-timeout.yaml), in milliseconds.
EXTRACT = (
    ExtractionRule(
        "timeout_s",
        r"Timeout\((?P<unit>ms)\)=(?P<value>[0-9]+)\)",
        units={"ms": 0.001},
        example=(
            "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for "
            "1802212 milliseconds before timi"
        ),
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Checkpoint save stall",
    summary=(
        "A synchronous save stops training for as long as the write takes; an asynchronous "
        "one only for the copy into host memory, unless saves come faster than the storage "
        "can absorb them. Defaults: an illustrative 100 GB checkpoint written at 1 GB/s "
        "every 30 minutes, against a 600 s collective timeout; for how often to save, see "
        "checkpoint-interval."
    ),
    formula=(
        "write = size / write_bandwidth; blocked = write (sync) or size / copy_bandwidth + "
        "max(0, write − interval) (async); lost = blocked / (interval + blocked); hours per "
        "day = 24 · lost; outlasts the timeout when blocked > timeout"
    ),
    source_title=(
        "Reducing Model Checkpointing Times by Over 10x with PyTorch Distributed "
        "Asynchronous Checkpointing"
    ),
    source_url="https://pytorch.org/blog/reducing-checkpointing-times/",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    extract=EXTRACT,
    see_also=(
        Source(
            "PyTorch recipe: Asynchronous Saving with Distributed Checkpoint (DCP)",
            "https://docs.pytorch.org/tutorials/recipes/distributed_async_checkpoint_recipe.html",
        ),
    ),
)
