"""Rate matching for turbo coded transport channels (TS 36.212 clause 5.1.4.1): sub-block
interleaving, bit collection, circular-buffer bit selection and pruning.

The whole procedure is expressed as an index map from output bit e_k to a position in the
flattened encoder output d (3*(K+4)), which the rate dematcher reuses for soft combining.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from silicon_agent.refmodels.ue_category import CAT1

C_SUBBLOCK = 32
# Inter-column permutation pattern, TS 36.212 Table 5.1.4-1.
PERM_PATTERN = np.array(
    [
        0,
        16,
        8,
        24,
        4,
        20,
        12,
        28,
        2,
        18,
        10,
        26,
        6,
        22,
        14,
        30,
        1,
        17,
        9,
        25,
        5,
        21,
        13,
        29,
        3,
        19,
        11,
        27,
        7,
        23,
        15,
        31,
    ]
)

# Cat-1 UE soft buffer (TS 36.306 Table 4.1-1) and FDD HARQ process count (TS 36.213 7).
N_SOFT_CAT1 = CAT1.total_soft_channel_bits
M_DL_HARQ_FDD = CAT1.harq_processes
M_LIMIT = CAT1.m_limit


def n_ir_bits(n_soft: int = N_SOFT_CAT1, k_mimo: int = 1, m_dl_harq: int = M_DL_HARQ_FDD) -> int:
    """N_IR = floor(N_soft / (K_MIMO * min(M_DL_HARQ, M_limit))) of TS 36.212 5.1.4.1.2."""
    return n_soft // (k_mimo * min(m_dl_harq, M_LIMIT))


def n_cb(k: int, c: int, n_ir: int | None = None) -> int:
    """Soft buffer size N_cb = min(floor(N_IR/C), K_w) for DL-SCH (TS 36.212 5.1.4.1.2)."""
    k_w = 3 * k_pi(k)
    return min((n_ir if n_ir is not None else n_ir_bits()) // c, k_w)


def k_pi(k: int) -> int:
    """K_Pi = R_subblock * C_subblock with R_subblock = ceil((K+4)/32) (5.1.4.1.1)."""
    return C_SUBBLOCK * (-(-(k + 4) // C_SUBBLOCK))


@cache
def _subblock_src(d_len: int, third: bool) -> np.ndarray:
    """Index into d^(i) of each interleaver output v_k, -1 for the dummy bits (5.1.4.1.1)."""
    rows = -(-d_len // C_SUBBLOCK)
    kp = rows * C_SUBBLOCK
    nd = kp - d_len
    y = np.arange(kp) - nd  # y_k = d_{k-N_D}; negative means <NULL> dummy
    if not third:
        mat = y.reshape(rows, C_SUBBLOCK)[:, PERM_PATTERN]
        return mat.T.reshape(-1).copy()
    k = np.arange(kp)
    pi = (PERM_PATTERN[k // rows] + C_SUBBLOCK * (k % rows) + 1) % kp
    return y[pi]


@cache
def circular_buffer(k: int, f: int) -> np.ndarray:
    """w_k of 5.1.4.1.2 as indices into the flattened d (row-major (3, K+4)); -1 = <NULL>.

    Dummy bits of the sub-block interleaver and the filler bits of d^(0), d^(1) (k < F) are NULL.
    """
    d_len = k + 4
    v0 = _subblock_src(d_len, False)
    v2 = _subblock_src(d_len, True)
    kp = v0.size

    def to_flat(src: np.ndarray, stream: int, filler: int) -> np.ndarray:
        """To flat (TS 36.212 5.1.4.1.2)."""
        out = np.where(src >= 0, src + stream * d_len, -1)
        out[(src >= 0) & (src < filler)] = -1
        return out

    w = np.empty(3 * kp, dtype=np.int64)
    w[:kp] = to_flat(v0, 0, f)
    w[kp::2] = to_flat(v0, 1, f)
    w[kp + 1 :: 2] = to_flat(v2, 2, 0)
    w.setflags(write=False)
    return w


def k0(k: int, ncb: int, rv: int) -> int:
    """Starting position k0 = R_subblock * (2*ceil(N_cb / (8 R_subblock)) * rv_idx + 2) (TS 36.212
    5.1.4.1.2)."""
    rows = k_pi(k) // C_SUBBLOCK
    return rows * (2 * (-(-ncb // (8 * rows))) * rv + 2)


@lru_cache(maxsize=256)
def selection_indices(k: int, f: int, e: int, rv: int, ncb: int) -> np.ndarray:
    """Flat d index of each output bit e_0..e_{E-1} (5.1.4.1.2 bit selection and pruning)."""
    if rv not in (0, 1, 2, 3):
        raise ValueError("rv must be 0..3")
    w = circular_buffer(k, f)[:ncb]
    start = k0(k, ncb, rv)
    rolled = np.roll(w, -start)
    valid = rolled[rolled >= 0]
    reps = -(-e // valid.size)
    idx = np.tile(valid, reps)[:e]
    idx.setflags(write=False)
    return idx


def code_block_e(g: int, c: int, r: int, qm: int, n_l: int = 1) -> int:
    """Rate-matched length E_r of code block r for G coded bits (TS 36.212 5.1.4.1.2)."""
    gp = g // (n_l * qm)
    gamma = gp % c
    if r <= c - gamma - 1:
        return n_l * qm * (gp // c)
    return n_l * qm * (-(-gp // c))


def rate_match(d: np.ndarray, f: int, e: int, rv: int, ncb: int) -> np.ndarray:
    """e_0..e_{E-1} from the (3, K+4) encoder output d (TS 36.212 5.1.4.1)."""
    k = d.shape[1] - 4
    return np.asarray(d).reshape(-1)[selection_indices(k, f, e, rv, ncb)]
