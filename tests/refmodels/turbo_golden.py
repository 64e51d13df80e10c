"""The turbo decoder's golden outputs: a wide set of cases (K, iterations, batch, float and
bit-true, early stop, filler, SISO split, saturating inputs) and a digest of each output, so a
faster decoder can be held bit-exact to the one it replaced.

``python tests/refmodels/turbo_golden.py [DECODER.py]`` rewrites ``data/turbo_golden.json``
from the decoder in this checkout (or from the module file given)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from silicon_agent.refmodels.ber import channel_llrs
from silicon_agent.refmodels.crc import crc_attach
from silicon_agent.refmodels.fixed_point import LLR, quantise
from silicon_agent.refmodels.turbo_encoder import turbo_encode

GOLDEN = Path(__file__).with_name("data") / "turbo_golden.json"

# (name, K, blocks, Eb/N0 dB, iterations, fixed, options); LLR scale > 1 drives the bit-true
# decoder into every saturation.
CASES: list[dict[str, Any]] = []
for _fixed in (False, True):
    _t = "fixed" if _fixed else "float"
    CASES += [
        {"name": f"{_t}-k6144-8it", "k": 6144, "blocks": 3, "ebn0": 0.6, "iters": 8},
        {"name": f"{_t}-k6144-8it-b33", "k": 6144, "blocks": 33, "ebn0": 0.7, "iters": 8},
        {"name": f"{_t}-k40-8it-b40", "k": 40, "blocks": 40, "ebn0": 0.0, "iters": 8},
        {"name": f"{_t}-k1056-3it", "k": 1056, "blocks": 5, "ebn0": 0.4, "iters": 3},
        {"name": f"{_t}-k4416-1it", "k": 4416, "blocks": 2, "ebn0": 1.0, "iters": 1},
        {"name": f"{_t}-k6080-5it", "k": 6080, "blocks": 4, "ebn0": 0.5, "iters": 5},
        {"name": f"{_t}-k1008-8it-one", "k": 1008, "blocks": 1, "ebn0": 0.2, "iters": 8,
         "squeeze": True},
        {"name": f"{_t}-k512-crc", "k": 512, "blocks": 6, "ebn0": 0.8, "iters": 8,
         "crc": "24B"},
        {"name": f"{_t}-k2048-crc-filler", "k": 2048, "blocks": 5, "ebn0": 0.6, "iters": 6,
         "crc": "24A", "filler": 40},
        {"name": f"{_t}-k6144-strong", "k": 6144, "blocks": 2, "ebn0": 3.0, "iters": 4,
         "scale": 6.0},
        {"name": f"{_t}-k104-weak", "k": 104, "blocks": 9, "ebn0": -2.0, "iters": 8},
    ]  # fmt: skip
    for _c in CASES[-11:]:
        _c["fixed"] = _fixed
CASES += [
    {"name": "float-k1024-siso4", "k": 1024, "blocks": 4, "ebn0": 0.5, "iters": 6, "siso": 4,
     "fixed": False},
    {"name": "fixed-k2048-siso1", "k": 2048, "blocks": 3, "ebn0": 0.5, "iters": 6, "siso": 1,
     "fixed": True},
    {"name": "fixed-k6144-siso8", "k": 6144, "blocks": 2, "ebn0": 0.6, "iters": 8, "siso": 8,
     "fixed": True},
]  # fmt: skip


def case_input(case: dict[str, Any]) -> np.ndarray:
    """The case's soft input (B, 3, K+4), or (3, K+4) for a squeezed single block."""
    k, n = case["k"], case["blocks"]
    seed = [sum(map(ord, case["name"])), k, n]
    rng = np.random.default_rng(seed)
    if "crc" in case:
        filler = case.get("filler", 0)
        payload = rng.integers(0, 2, (n, k - 24 - filler)).astype(np.uint8)
        blocks = [
            np.concatenate([np.zeros(filler, np.uint8), crc_attach(p, case["crc"])[:]])
            for p in payload
        ]
        d = np.stack([turbo_encode(c) for c in blocks])
        rate = k / (3 * (k + 4))
        sigma2 = 1.0 / (2.0 * rate * 10 ** (case["ebn0"] / 10))
        y = (2.0 * d - 1.0) + rng.normal(0.0, np.sqrt(sigma2), d.shape)
        llr = 2.0 * y / sigma2
    else:
        _, llr = channel_llrs(k, case["ebn0"], n, rng)
    llr = llr * case.get("scale", 1.0)
    if case["fixed"]:
        llr = quantise(llr, LLR)
    return llr[0] if case.get("squeeze") else llr


def run_case(decode: Callable[..., Any], case: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {"fixed": case["fixed"]}
    if "crc" in case:
        kwargs["crc"] = case["crc"]
        kwargs["n_filler"] = case.get("filler", 0)
    if "siso" in case:
        kwargs["siso"] = case["siso"]
    return decode(case_input(case), case["iters"], **kwargs)


def digest(result: Any) -> str:
    """SHA-256 over bits, LLRs (-0.0 read as 0.0), iterations and CRC flags, with their dtypes."""
    h = hashlib.sha256()
    llr = np.asarray(result.llr)
    if llr.dtype.kind == "f":
        llr = llr + llr.dtype.type(0)
    for arr in (result.bits, llr, result.iterations, result.crc_ok):
        arr = np.ascontiguousarray(arr)
        h.update(f"{arr.dtype.str}{arr.shape}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def main() -> None:
    if len(sys.argv) > 1:
        spec = importlib.util.spec_from_file_location("turbo_decoder_golden", sys.argv[1])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        decode = module.turbo_decode
    else:
        from silicon_agent.refmodels.turbo_decoder import turbo_decode as decode
    out = {}
    for case in CASES:
        res = run_case(decode, case)
        out[case["name"]] = {
            "digest": digest(res),
            "bit_errors_free_blocks": int(res.crc_ok.sum()),
            "iterations": [int(i) for i in res.iterations[:8]],
        }
        print(case["name"], out[case["name"]]["digest"][:16], flush=True)
    GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
