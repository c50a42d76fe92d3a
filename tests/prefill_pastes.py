"""Pastes the calculator-prefill tests share (the view's and the browser's): what each
would open, or not, is asserted where it is used."""

from __future__ import annotations

# PyTorch's OOM line: one number (the GPU's capacity) a calculator takes.
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.00 GiB is free."
)
# tests/data/labelled: vLLM's error when one request of the model's length does not fit.
KV_DOES_NOT_FIT = (
    "ValueError: To serve at least one request with the models's max seq len (131072), "
    "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory "
    "(0.71 GiB). Based on the available memory, the estimated maximum model length is 5632. "
    "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
    "initializing the engine."
)
# A bare NCCL watchdog timeout: its Timeout(ms) is the only number in it.
WATCHDOG = (
    "[rank2]:[E112 15:47:18.728729935 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, NumelIn=4096, "
    "NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
)
