"""clCreateSubDevices' partition schemes: a property list -> groups of compute units.

`plan_partition(properties, cores, max_sub_devices, level_groups)` reads
PyOpenCL's property list (`[EQUALLY, n]`, `[BY_COUNTS, m1, m2, ..., BY_COUNTS_LIST_END]`,
`[BY_AFFINITY_DOMAIN, domain]`; a trailing 0 that ends the list is allowed)
and returns the cores of each sub-device with the PARTITION_TYPE it
reports (`level_groups(cores, level)` says how a cache or NUMA level splits
`cores`: drivers/topology.py's `domain_groups`, or a test's), or raises the
error OpenCL 3.0 names (4.3, clCreateSubDevices):

- INVALID_VALUE: not a list of integers, an unknown scheme, a scheme without
  its value, more than one scheme, a non-positive EQUALLY count, an affinity
  domain that is not one bit of device_affinity_domain or that this machine
  does not describe;
- INVALID_DEVICE_PARTITION_COUNT: BY_COUNTS with a negative count, no count
  before BY_COUNTS_LIST_END (which is 0), more sub-devices than
  PARTITION_MAX_SUB_DEVICES or more compute units than the device has;
- DEVICE_PARTITION_FAILED: a valid request the device cannot meet (EQUALLY of
  more units than it has, an affinity domain all its units share).

Cores are handed out in order, so sub-devices never overlap.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from .constants import device_affinity_domain, device_partition_property as dpp
from .errors import raise_cl, status_code

ROUTINE = "clCreateSubDevices"
DOMAIN_LEVELS = {device_affinity_domain.NUMA: "numa", device_affinity_domain.L4_CACHE: "L4",
                 device_affinity_domain.L3_CACHE: "L3", device_affinity_domain.L2_CACHE: "L2",
                 device_affinity_domain.L1_CACHE: "L1"}
LevelGroups = Callable[[tuple[int, ...], str], "list[tuple[int, ...]] | None"]


def _integers(properties: Any) -> list[int]:
    if not isinstance(properties, (list, tuple)):
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"partition properties must be a list, got {type(properties).__name__}")
    values = []
    for item in properties:
        try:
            values.append(operator.index(item))
        except TypeError:
            raise_cl(ROUTINE, status_code.INVALID_VALUE,
                     f"partition properties are integers, got {item!r}")
    return values


def plan_partition(properties: Any, cores: tuple[int, ...], max_sub_devices: int,
                   level_groups: LevelGroups) -> list[tuple[tuple[int, ...], list[int]]]:
    """[(cores of a sub-device, its PARTITION_TYPE)], or the OpenCL error."""
    values = _integers(properties)
    if not values or values[0] == 0:
        raise_cl(ROUTINE, status_code.INVALID_VALUE, "no partition scheme given")
    scheme, rest = values[0], values[1:]
    if scheme == dpp.BY_COUNTS:
        counts, rest = _counts(rest)
        _only_one(rest)
        return _by_counts(counts, cores, max_sub_devices)
    if scheme not in (dpp.EQUALLY, dpp.BY_AFFINITY_DOMAIN):
        raise_cl(ROUTINE, status_code.INVALID_VALUE, f"unknown partition scheme {scheme:#x}")
    if not rest:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"partition scheme {dpp.to_string(scheme)} needs a value")
    _only_one(rest[1:])
    if scheme == dpp.EQUALLY:
        return _equally(rest[0], cores)
    return _by_domain(rest[0], cores, level_groups)


def _only_one(rest: list[int]) -> None:
    if rest and rest != [0]:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 "only one partition scheme may be given (the list continues after it)")


def _counts(values: list[int]) -> tuple[list[int], list[int]]:
    """The counts up to BY_COUNTS_LIST_END (or the end), and what follows it."""
    if dpp.BY_COUNTS_LIST_END in values:
        end = values.index(dpp.BY_COUNTS_LIST_END)
        return values[:end], values[end + 1:]
    return values, []


def _equally(n: int, cores: tuple[int, ...]) -> list[tuple[tuple[int, ...], list[int]]]:
    if n <= 0:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"EQUALLY needs a positive number of compute units, got {n}")
    if n > len(cores):
        raise_cl(ROUTINE, status_code.DEVICE_PARTITION_FAILED,
                 f"cannot make sub-devices of {n} compute units from a device of {len(cores)}")
    return [(cores[i:i + n], [dpp.EQUALLY, n]) for i in range(0, len(cores) - n + 1, n)]


def _by_counts(counts: list[int], cores: tuple[int, ...],
               max_sub_devices: int) -> list[tuple[tuple[int, ...], list[int]]]:
    bad = status_code.INVALID_DEVICE_PARTITION_COUNT
    if any(m < 0 for m in counts):
        raise_cl(ROUTINE, bad, f"compute unit counts must not be negative, got {counts}")
    wanted = [m for m in counts if m]
    if not wanted:
        raise_cl(ROUTINE, bad, "BY_COUNTS needs at least one nonzero compute unit count "
                               "before BY_COUNTS_LIST_END")
    if len(wanted) > max_sub_devices:
        raise_cl(ROUTINE, bad, f"{len(wanted)} sub-devices asked for; the device makes at most "
                               f"{max_sub_devices} (PARTITION_MAX_SUB_DEVICES)")
    if sum(wanted) > len(cores):
        raise_cl(ROUTINE, bad, f"{sum(wanted)} compute units asked for; the device has {len(cores)}")
    kind = [dpp.BY_COUNTS, *wanted, dpp.BY_COUNTS_LIST_END]
    plan, at = [], 0
    for m in wanted:
        plan.append((cores[at:at + m], kind))
        at += m
    return plan


def _by_domain(domain: int, cores: tuple[int, ...],
               level_groups: LevelGroups) -> list[tuple[tuple[int, ...], list[int]]]:
    if domain == device_affinity_domain.NEXT_PARTITIONABLE:
        for bit, level in DOMAIN_LEVELS.items():
            groups = level_groups(cores, level)
            if groups is not None and len(groups) > 1:
                return [(g, [dpp.BY_AFFINITY_DOMAIN, bit]) for g in groups]
        raise_cl(ROUTINE, status_code.DEVICE_PARTITION_FAILED,
                 f"the device's {len(cores)} compute units share every affinity domain this "
                 f"machine describes: nothing to split along")
    level = DOMAIN_LEVELS.get(domain)
    if level is None:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"invalid affinity domain {domain!r} (one of device_affinity_domain's values)")
    groups = level_groups(cores, level)
    name = device_affinity_domain.to_string(domain)
    if groups is None:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"affinity domain {name} is not supported by the device: this machine does "
                 f"not describe it")
    if len(groups) < 2:
        raise_cl(ROUTINE, status_code.DEVICE_PARTITION_FAILED,
                 f"all {len(cores)} compute units of the device share one {name}: "
                 f"nothing to split along")
    return [(g, [dpp.BY_AFFINITY_DOMAIN, domain]) for g in groups]
