"""The SystemVerilog package and the RTL constants must never drift from refmodels."""

from __future__ import annotations

import re

import numpy as np

from silicon_agent.hdl.registry import PACKAGE_SV, REPO
from silicon_agent.refmodels.crc import crc_remainder
from silicon_agent.refmodels.fixed_point import FORMATS
from silicon_agent.refmodels.qam_demodulator import FIXED_SHIFT, level_raw

LOCALPARAM = re.compile(r"localparam\s+int\s+(\w+)\s*=\s*([0-9_]+)\s*;")
POLY = re.compile(r"localparam\s+logic\s*\[[^\]]+\]\s*(CRC24[AB])_POLY\s*=\s*24'h([0-9A-Fa-f]+)")


def _package_text() -> str:
    return (REPO / PACKAGE_SV).read_text()


def _localparams() -> dict[str, int]:
    return {m[1]: int(m[2].replace("_", "")) for m in LOCALPARAM.finditer(_package_text())}


def test_every_fixed_point_format_matches_refmodels() -> None:
    params = _localparams()
    for fmt in FORMATS:
        key = fmt.name.upper()
        assert params.get(f"{key}_W") == fmt.width, (fmt.name, params.get(f"{key}_W"))
        assert params.get(f"{key}_FRAC") == fmt.frac, (fmt.name, params.get(f"{key}_FRAC"))


def test_package_has_no_format_refmodels_lacks() -> None:
    params = _localparams()
    sv_formats = {name[: -len("_FRAC")] for name in params if name.endswith("_FRAC")}
    assert sv_formats == {f.name.upper() for f in FORMATS}


def test_crc_polynomials_match_refmodels() -> None:
    polys = {m[1]: int(m[2], 16) for m in POLY.finditer(_package_text())}
    assert set(polys) == {"CRC24A", "CRC24B"}
    # The parity of the one-bit message "1" is x^24 mod g: the polynomial without its top term.
    impulse = np.array([1], dtype=np.uint8)
    assert polys["CRC24A"] == crc_remainder(impulse, "24A")
    assert polys["CRC24B"] == crc_remainder(impulse, "24B")


def test_qam_levels_and_shift_match_refmodels() -> None:
    text = (REPO / "hdl/rtl/qam_demodulator.sv").read_text()
    in_rtl = {int(v) for v in re.findall(r"16'sd(\d+)", text)}
    expected = {abs(int(v)) for m in ("QPSK", "16QAM", "64QAM") for v in level_raw(m)}
    assert in_rtl == expected
    params = _localparams()
    shift = 2 * params["EQ_OUT_FRAC"] + params["LLR_SCALE_FRAC"] - params["LLR_FRAC"]
    assert shift == FIXED_SHIFT
