"""The C allocator of a serving process: glibc's malloc, told to keep large blocks out of
its arenas.

glibc serves a block of at least its mmap threshold (128 KiB) with a mapping of its own,
returned to the system when freed; but when such a block is freed it raises the threshold
to that block's size (up to 32 MiB). A save frees the last index's large arrays, so from
the first save on, every block up to several MiB (a scan's 250 KB body, its lines, its
answer) came from the arenas, one per thread of the request pool, whose free space glibc
keeps. Under load with saves a worker grew from ~170 to ~500 MB with ~55 MB in use
(issue 35, defect 10; bench/bench_faults.py measures it). Fixing the threshold keeps
large blocks in mappings of their own (fixing it also stops glibc moving it)."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

# mallopt's parameter number for the mmap threshold (malloc.h).
M_MMAP_THRESHOLD = -3
# glibc's own starting value: blocks from 128 KiB up get a mapping of their own.
MMAP_THRESHOLD_BYTES = 128 * 1024


def fix_mmap_threshold() -> bool:
    """Pin glibc's mmap threshold at its starting value; False where the C library is not
    glibc (musl, macOS), which has no such threshold to move."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name)
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None or not hasattr(libc, "gnu_get_libc_version"):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    fixed = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
    if not fixed:
        logger.warning("glibc refused a fixed mmap threshold; a worker may keep freed memory")
    return fixed
