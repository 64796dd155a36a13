"""Which of the host's cores share a NUMA node or a cache: the cpu device's affinity domains.

`domain_groups(cores, level)` splits `cores` into the groups that share one
resource of `level` ("numa", "L1".."L4"), read from Linux's sysfs
(/sys/devices/system/node/nodeN/cpulist and
/sys/devices/system/cpu/cpuN/cache/indexK/{level,type,shared_cpu_list});
None when the machine does not say (another OS, no such cache level). These
are what clCreateSubDevices' BY_AFFINITY_DOMAIN partitions along.
"""

from __future__ import annotations

import functools
import glob
import os

SYSFS = "/sys/devices/system"
LEVELS = ("numa", "L4", "L3", "L2", "L1")  # from the widest to the narrowest


def parse_cpu_list(text: str) -> set[int]:
    """'0-3,8,10-11' -> {0, 1, 2, 3, 8, 10, 11}."""
    cores: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        cores.update(range(int(low), int(high or low) + 1))
    return cores


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


@functools.lru_cache(maxsize=64)
def _sharing_sets(level: str, root: str) -> list[frozenset[int]] | None:
    """Every set of cores sharing one resource of `level` on this machine, or None (read
    once per level: the machine's topology does not change while it runs)."""
    if level == "numa":
        lists = [_read(p) for p in sorted(glob.glob(os.path.join(root, "node", "node*", "cpulist")))]
    else:
        lists = []
        for index in sorted(glob.glob(os.path.join(root, "cpu", "cpu[0-9]*", "cache", "index*"))):
            kind = (_read(os.path.join(index, "type")) or "").strip()
            if (_read(os.path.join(index, "level")) or "").strip() == level[1:] and kind != "Instruction":
                lists.append(_read(os.path.join(index, "shared_cpu_list")))
    sets = [frozenset(parse_cpu_list(t)) for t in lists if t and t.strip()]
    return sets or None


def domain_groups(cores: tuple[int, ...], level: str, root: str = SYSFS) -> list[tuple[int, ...]] | None:
    """`cores` split by the resources of `level` they share (in core order), or None
    when the machine does not describe that level."""
    sets = _sharing_sets(level, root)
    if sets is None:
        return None
    groups: dict[tuple[int, ...], None] = {}
    for core in cores:
        owner = next((s for s in sets if core in s), frozenset((core,)))
        groups[tuple(c for c in cores if c in owner)] = None
    return list(groups)


def available_levels(cores: tuple[int, ...], root: str = SYSFS) -> list[str]:
    """The levels this machine describes, widest first."""
    return [level for level in LEVELS if domain_groups(cores, level, root) is not None]
