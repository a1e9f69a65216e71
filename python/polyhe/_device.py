"""Devices: where a context's keys and ciphertexts live and its operations run.

``device=None`` (the default) keeps everything in host memory on the CPU kernels. ``"cuda"`` or
``"cuda:N"`` names a CUDA GPU (the module must be built with the CUDA backend, and a GPU must be
visible); ``"emulated"`` is the emulated device, which runs the same CUDA kernel bodies on the
host, thread by thread: the device code path without a GPU, slow, for tests. One device object
per name and process, made on first use.
"""

from __future__ import annotations

import re
import threading
from typing import Dict, List, Optional, Union

from polyhe import _polyhe

__all__ = ["Device", "device", "gpus", "cuda_compiled"]

Device = _polyhe.Device
DeviceArg = Union[None, str, "_polyhe.Device"]

_lock = threading.Lock()
_made: Dict[str, "_polyhe.Device"] = {}


def device(spec: str = "emulated") -> "_polyhe.Device":
    """The device ``spec`` names: ``"emulated"``, ``"cuda"`` (GPU 0) or ``"cuda:N"``, made once
    per process (a Device passes through). DeviceError when the module has no CUDA backend or the
    GPU cannot be used; InvalidParameter for another name."""
    if isinstance(spec, _polyhe.Device):
        return spec
    if not isinstance(spec, str):
        raise TypeError(
            f"device: expected 'emulated', 'cuda', 'cuda:N' or a polyhe.Device, got "
            f"{type(spec).__name__}"
        )
    if spec == "emulated":
        name, make = spec, _polyhe.emulated_device
    else:
        m = re.fullmatch(r"cuda(?::([0-9]{1,4}))?", spec)
        if m is None:
            raise _polyhe.InvalidParameter(
                f"device = {spec!r}: expected 'emulated', 'cuda' or 'cuda:N' (N a GPU index), "
                f"or None for host memory"
            )
        index = int(m.group(1) or 0)
        name = f"cuda:{index}"

        def make() -> "_polyhe.Device":
            return _polyhe.cuda_device(index)

    with _lock:
        found = _made.get(name)
        if found is None:
            found = make()
            _made[name] = found
        return found


def resolve(spec: DeviceArg) -> Optional["_polyhe.Device"]:
    """None (or "cpu") for host memory, else :func:`device`."""
    if spec is None or (isinstance(spec, str) and spec == "cpu"):
        return None
    return device(spec)


def gpus() -> List[str]:
    """The names of the visible CUDA GPUs, by index (empty without the CUDA backend or a GPU)."""
    return list(_polyhe.gpu_names())


def cuda_compiled() -> bool:
    """Whether this build of the module has the CUDA backend."""
    return bool(_polyhe.cuda_compiled())
