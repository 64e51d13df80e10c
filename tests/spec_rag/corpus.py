"""Generated specifications in the 3GPP layout, for tests and benchmarks.

3GPP documents may not be redistributed, so nothing is shipped: these builders write PDF
(reportlab: bookmarks, running headers and footers, sub/superscripts, a table split across
pages) and DOCX (python-docx: heading styles, caption and equation paragraph styles, native
tables) files from the text below, which is written for this project. Markup in the text:
`_{x}` is a subscript, `^{x}` a superscript. `QUESTIONS` label each question with the clause
that answers it, for the retrieval evaluation.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Block tuples: ("p", text) prose, ("eq", text) displayed formula, ("li", [items]) numbered
# list, ("table", table_id, caption, header, rows).
Block = tuple[Any, ...]


@dataclass
class Clause:
    number: str
    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class SpecText:
    kind: str
    number: str  # "36.212"
    version: str
    release: int
    date: str
    title: str
    clauses: list[Clause]

    @property
    def identity(self) -> str:
        return f"3GPP {self.kind} {self.number} V{self.version} ({self.date})"


def _qpp_rows() -> list[list[str]]:
    from silicon_agent.refmodels.qpp_table import QPP_TABLE

    return [[str(i + 1), str(k), str(f1), str(f2)] for i, (k, f1, f2) in enumerate(QPP_TABLE)]


def _permutation_rows() -> list[list[str]]:
    pattern = [0, 16, 8, 24, 4, 20, 12, 28, 2, 18, 10, 26, 6, 22, 14, 30]
    pattern += [1, 17, 9, 25, 5, 21, 13, 29, 3, 19, 11, 27, 7, 23, 15, 31]
    return [["32", "<" + ", ".join(str(p) for p in pattern) + ">"]]


C = Clause

SPEC_36212 = SpecText(
    kind="TS",
    number="36.212",
    version="15.6.0",
    release=15,
    date="2019-06",
    title="Evolved Universal Terrestrial Radio Access (E-UTRA); Multiplexing and channel coding",
    clauses=[
        C(
            "1",
            "Scope",
            [
                (
                    "p",
                    "The present document specifies the coding, multiplexing and "
                    "mapping to physical channels for the E-UTRA radio interface.",
                )
            ],
        ),
        C(
            "2",
            "References",
            [
                (
                    "p",
                    "The following documents contain provisions which, through "
                    "reference in this text, constitute provisions of the present document. [2] "
                    "3GPP TS "
                    "36.211: Physical channels and modulation.",
                )
            ],
        ),
        C("3", "Definitions, symbols and abbreviations", []),
        C(
            "3.1",
            "Definitions",
            [
                (
                    "p",
                    "For the purposes of the present document, the terms "
                    "and definitions given in TR 21.905 apply. A resource element is the "
                    "smallest unit "
                    "of the time-frequency grid, one subcarrier during one symbol.",
                )
            ],
        ),
        C(
            "3.2",
            "Symbols",
            [
                (
                    "p",
                    "For the purposes of the present document the following "
                    "symbols apply: N_{RB}^{DL} downlink bandwidth configuration expressed in "
                    "number of "
                    "resource blocks; N_{symb}^{DL} number of OFDM symbols in a downlink slot; "
                    "K_{r} "
                    "number of bits in code block number r.",
                )
            ],
        ),
        C(
            "3.3",
            "Abbreviations",
            [
                (
                    "p",
                    "BCH Broadcast channel. CFI Control format "
                    "indicator. CRC Cyclic redundancy check. DCI Downlink control information. "
                    "HARQ "
                    "Hybrid automatic repeat request. RNTI Radio network temporary identifier.",
                )
            ],
        ),
        C(
            "4",
            "Mapping to physical channels",
            [
                (
                    "p",
                    "Each transport channel is mapped to "
                    "one physical channel as listed in the tables of this clause.",
                )
            ],
        ),
        C(
            "4.1",
            "Uplink",
            [
                (
                    "p",
                    "Table 4.1-1 specifies the mapping of the uplink transport "
                    "channels to their corresponding physical channels.",
                ),
                (
                    "table",
                    "4.1-1",
                    "Mapping of uplink transport channels",
                    ["TrCH", "Physical Channel"],
                    [["UL-SCH", "PUSCH"], ["RACH", "PRACH"]],
                ),
            ],
        ),
        C(
            "4.2",
            "Downlink",
            [
                (
                    "p",
                    "Table 4.2-1 specifies the mapping of the downlink "
                    "transport channels to their corresponding physical channels.",
                ),
                (
                    "table",
                    "4.2-1",
                    "Mapping of downlink transport channels",
                    ["TrCH", "Physical Channel"],
                    [["DL-SCH", "PDSCH"], ["BCH", "PBCH"], ["PCH", "PDSCH"], ["MCH", "PMCH"]],
                ),
            ],
        ),
        C(
            "5",
            "Channel coding, multiplexing and interleaving",
            [
                (
                    "p",
                    "Data and control "
                    "streams from and to the MAC layer are encoded and decoded to offer "
                    "transport and "
                    "control services over the radio transmission link.",
                )
            ],
        ),
        C(
            "5.1",
            "Generic procedures",
            [
                (
                    "p",
                    "This clause contains coding procedures which "
                    "are used for more than one transport channel or control information type.",
                )
            ],
        ),
        C(
            "5.1.1",
            "CRC calculation",
            [
                (
                    "p",
                    "Denote the input bits to the CRC computation by a_{0}, a_{1}, ..., a_{A-1} "
                    "and the parity bits by p_{0}, p_{1}, ..., p_{L-1}, where A is the size of the "
                    "input sequence and L is the number of parity bits. The parity bits are "
                    "generated by one of the following cyclic generator polynomials:",
                ),
                (
                    "eq",
                    "g_{CRC24A}(D) = [D^{24} + D^{23} + D^{18} + D^{17} + D^{14} + D^{11} + "
                    "D^{10} + D^{7} + D^{6} + D^{5} + D^{4} + D^{3} + D + 1]",
                ),
                ("p", "The polynomial above is used for the transport block CRC, called CRC-24A."),
                ("eq", "g_{CRC24B}(D) = [D^{24} + D^{23} + D^{6} + D^{5} + D + 1]"),
                ("p", "CRC-24B is the code block CRC used when a transport block is segmented."),
                ("eq", "g_{CRC16}(D) = [D^{16} + D^{12} + D^{5} + 1]"),
                ("eq", "g_{CRC8}(D) = [D^{8} + D^{7} + D^{4} + D^{3} + D + 1]"),
                (
                    "p",
                    "The encoding is performed in a systematic form, which means that in GF(2) "
                    "the polynomial yields a remainder equal to 0 when divided by the "
                    "corresponding "
                    "length-24 CRC generator polynomial. The bits after CRC attachment are denoted "
                    "by b_{0}, b_{1}, ..., b_{B-1}, where B = A + L.",
                ),
            ],
        ),
        C(
            "5.1.2",
            "Code block segmentation and code block CRC attachment",
            [
                (
                    "p",
                    "The input bit sequence to the code block segmentation is denoted by b_{0}, "
                    "..., b_{B-1}. If B is larger than the maximum code block size Z, "
                    "segmentation of "
                    "the input bit sequence is performed and an additional CRC sequence of L = 24 "
                    "bits is attached to each code block. The maximum code block size is Z = 6144.",
                ),
                (
                    "li",
                    [
                        "the bits b_{0}, ..., b_{B-1} are split into C code blocks of sizes K_{+} "
                        "and K_{-} chosen from Table 5.1.3-3;",
                        "filler bits are inserted at the start of the first code block when the "
                        "total size does not match the sum of the code block sizes;",
                        "the CRC-24B parity bits are computed over each code block, see clause "
                        "5.1.1.",
                    ],
                ),
                ("eq", "C = \u2308B' / (Z - L)\u2309"),
                (
                    "p",
                    "The number of filler bits is F = C_{+} K_{+} + C_{-} K_{-} - B'. Filler "
                    "bits are set to the value NULL at the input to the encoder.",
                ),
            ],
        ),
        C(
            "5.1.3",
            "Channel coding",
            [
                (
                    "p",
                    "The bit sequence input for a given code block to channel coding is denoted "
                    "by c_{0}, ..., c_{K-1}, where K is the number of bits to encode. The coding "
                    "scheme for each transport channel is given in Table 5.1.3-1.",
                ),
                (
                    "table",
                    "5.1.3-1",
                    "Usage of channel coding scheme and coding rate",
                    ["TrCH", "Coding scheme", "Coding rate"],
                    [
                        ["UL-SCH", "Turbo coding", "1/3"],
                        ["DL-SCH", "Turbo coding", "1/3"],
                        ["PCH", "Turbo coding", "1/3"],
                        ["MCH", "Turbo coding", "1/3"],
                        ["BCH", "Tail biting convolutional coding", "1/3"],
                    ],
                ),
            ],
        ),
        C(
            "5.1.3.1",
            "Tail biting convolutional coding",
            [
                (
                    "p",
                    "A tail biting convolutional code with constraint length 7 and coding rate "
                    "1/3 is defined. The initial value of the shift register of the encoder is set "
                    "to the values corresponding to the last 6 information bits, so that the "
                    "initial and final states of the shift register are the same.",
                ),
                (
                    "p",
                    "The generator polynomials are G_{0} = 133 (octal), G_{1} = 171 (octal) and "
                    "G_{2} = 165 (octal).",
                ),
            ],
        ),
        C("5.1.3.2", "Turbo coding", []),
        C(
            "5.1.3.2.1",
            "Turbo encoder",
            [
                (
                    "p",
                    "The scheme of the turbo encoder is a parallel concatenated convolutional "
                    "code with two 8-state constituent encoders and one turbo code internal "
                    "interleaver. The coding rate of the turbo encoder is 1/3.",
                ),
                ("eq", "G(D) = [1, g_{1}(D)/g_{0}(D)]"),
                (
                    "p",
                    "The transfer function of the 8-state constituent code uses g_{0}(D) = 1 + "
                    "D^{2} + D^{3} and g_{1}(D) = 1 + D + D^{3}. The initial value of the shift "
                    "registers of the 8-state constituent encoders shall be all zeros. The "
                    "interleaver is described in clause 5.1.3.2.3.",
                ),
            ],
        ),
        C(
            "5.1.3.2.2",
            "Trellis termination for turbo encoder",
            [
                (
                    "p",
                    "Trellis termination is performed by taking the tail bits from the shift "
                    "register feedback after all information bits are encoded. Tail bits are "
                    "padded "
                    "after the encoding of information bits. The first three tail bits terminate "
                    "the first constituent encoder while the second constituent encoder is "
                    "disabled; the last three tail bits terminate the second constituent encoder.",
                ),
            ],
        ),
        C(
            "5.1.3.2.3",
            "Turbo code internal interleaver",
            [
                (
                    "p",
                    "The bits input to the turbo code internal interleaver are denoted by c_{0}, "
                    "..., c_{K-1}, where K is the number of input bits. The bits output from the "
                    "interleaver are denoted by c'_{0}, ..., c'_{K-1}. The relationship between "
                    "the "
                    "input and output bits is c'_{i} = c_{\u03a0(i)}, where the output index i and "
                    "the input index \u03a0(i) satisfy the quadratic form:",
                ),
                ("eq", "\u03a0(i) = (f_{1} \u00b7 i + f_{2} \u00b7 i^{2}) mod K"),
                (
                    "p",
                    "The parameters f_{1} and f_{2} depend on the block size K and are "
                    "summarized in Table 5.1.3-3.",
                ),
                (
                    "table",
                    "5.1.3-3",
                    "Turbo code internal interleaver parameters",
                    ["i", "K", "f1", "f2"],
                    "QPP",
                ),
            ],
        ),
        C("5.1.4", "Rate matching", []),
        C(
            "5.1.4.1",
            "Rate matching for turbo coded transport channels",
            [
                (
                    "p",
                    "The rate matching for turbo coded transport channels is defined per coded "
                    "block and consists of interleaving the three information bit streams, "
                    "followed "
                    "by the collection of bits and the generation of a circular buffer.",
                ),
            ],
        ),
        C(
            "5.1.4.1.1",
            "Sub-block interleaver",
            [
                (
                    "p",
                    "The number of columns of the matrix is C_{subblock}^{TC} = 32, numbered 0 "
                    "to 31 from left to right. The number of rows R_{subblock}^{TC} is the minimum "
                    "integer such that the input D \u2264 R_{subblock}^{TC} \u00d7 "
                    "C_{subblock}^{TC}. Dummy bits are padded when the matrix is not full.",
                ),
                (
                    "p",
                    "Inter-column permutation is performed for the matrix based on the pattern "
                    "of Table 5.1.4-1.",
                ),
                (
                    "table",
                    "5.1.4-1",
                    "Inter-column permutation pattern for sub-block interleaver",
                    ["Number of columns", "Inter-column permutation pattern"],
                    "PERM",
                ),
            ],
        ),
        C(
            "5.1.4.1.2",
            "Bit collection, selection and transmission",
            [
                (
                    "p",
                    "The circular buffer of length K_{w} = 3 K_{\u03a0} is generated from the "
                    "systematic stream followed by the interlaced parity streams. The soft buffer "
                    "size for the code block is N_{cb}. The starting position of the transmission "
                    "depends on the redundancy version rv_{idx}:",
                ),
                (
                    "eq",
                    "k_{0} = R_{subblock}^{TC} \u00b7 (2 \u00b7 \u2308N_{cb} / (8 "
                    "R_{subblock}^{TC})\u2309 \u00b7 rv_{idx} + 2)",
                ),
                ("p", "Null bits are skipped while reading the circular buffer."),
            ],
        ),
        C(
            "5.1.4.2",
            "Rate matching for convolutionally coded transport channels and control information",
            [
                (
                    "p",
                    "The rate matching for convolutionally coded channels interleaves the three "
                    "output streams of the tail biting encoder with a sub-block interleaver of 32 "
                    "columns and collects them into a circular buffer of length 3 K_{\u03a0}, read "
                    "repeatedly until E bits are output.",
                ),
            ],
        ),
        C(
            "5.1.5",
            "Code block concatenation",
            [
                (
                    "p",
                    "The code block concatenation sequentially concatenates the rate matching "
                    "outputs for the different code blocks, for r = 0 to C - 1, into the sequence "
                    "f_{0}, ..., f_{G-1}.",
                ),
            ],
        ),
        C("5.2", "Uplink transport channels and control information", []),
        C(
            "5.2.1",
            "Random access channel",
            [
                (
                    "p",
                    "The sequence index for the random access channel is received from higher "
                    "layers and is processed according to clause 5.7 of [2]; no channel coding "
                    "applies.",
                ),
            ],
        ),
        C(
            "5.2.2",
            "Uplink shared channel",
            [
                (
                    "p",
                    "Data arrives to the coding unit in the form of a maximum of two transport "
                    "blocks every transmission time interval. The coding steps are CRC attachment "
                    "(see clause 5.1.1), code block segmentation, channel coding, rate matching, "
                    "code block concatenation and multiplexing of data and control information.",
                ),
            ],
        ),
        C(
            "5.2.2.6",
            "Channel coding of control information",
            [
                (
                    "p",
                    "Control data arrives at the coding unit in the form of channel quality "
                    "information, HARQ-ACK and rank indication. For HARQ-ACK with one bit the "
                    "encoding repeats the bit with placeholders y and x to maximise the Euclidean "
                    "distance of the modulation symbols carrying the acknowledgement.",
                ),
            ],
        ),
        C("5.3", "Downlink transport channels and control information", []),
        C(
            "5.3.1",
            "Broadcast channel",
            [
                (
                    "p",
                    "Data arrives to the coding unit in the form of a maximum of one transport "
                    "block every transmission time interval of 40 ms. The transport block size of "
                    "the BCH is 24 bits and a CRC of 16 bits is attached.",
                ),
            ],
        ),
        C(
            "5.3.1.1",
            "Transport block CRC attachment",
            [
                (
                    "p",
                    "After attachment, the CRC bits are scrambled according to the eNodeB "
                    "transmit antenna configuration with the sequence of Table 5.3.1.1-1.",
                ),
                (
                    "table",
                    "5.3.1.1-1",
                    "CRC mask for PBCH",
                    ["Number of transmit antenna ports at eNodeB", "PBCH CRC mask"],
                    [
                        ["1", "<0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>"],
                        ["2", "<1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>"],
                        ["4", "<0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1>"],
                    ],
                ),
            ],
        ),
        C(
            "5.3.2",
            "Downlink shared channel, Paging channel and Multicast channel",
            [
                (
                    "p",
                    "Data arrives to the coding unit in the form of a maximum of two transport "
                    "blocks every transmission time interval per downlink cell. The transport "
                    "block "
                    "CRC uses CRC-24A and the code block CRC uses CRC-24B, see Table 5.1.3-1 for "
                    "the coding scheme. Scrambling of the codewords is described in clause 6.3.1 "
                    "of "
                    "TS 36.211.",
                ),
            ],
        ),
        C(
            "5.3.3",
            "Downlink control information",
            [
                (
                    "p",
                    "A DCI transports downlink or uplink scheduling information, requests for "
                    "aperiodic CQI reports or uplink power control commands for one cell and one "
                    "RNTI. The RNTI is implicitly encoded in the CRC.",
                ),
            ],
        ),
        C(
            "5.3.3.2",
            "CRC attachment",
            [
                (
                    "p",
                    "Error detection is provided on DCI transmissions through a 16 bit CRC. "
                    "After attachment, the CRC parity bits are scrambled with the corresponding "
                    "RNTI x_{rnti,0}, ..., x_{rnti,15}, where x_{rnti,0} corresponds to the MSB of "
                    "the RNTI.",
                ),
            ],
        ),
        C(
            "5.3.4",
            "Control format indicator",
            [
                (
                    "p",
                    "Data arrives each subframe to the coding unit in the form of an indicator "
                    "of the time span, in units of OFDM symbols, of the DCI carried by the PDCCH. "
                    "The CFI takes values 1, 2, 3 or 4 and is coded into a 32 bit code word given "
                    "in Table 5.3.4-1.",
                ),
                (
                    "table",
                    "5.3.4-1",
                    "CFI code words",
                    ["CFI", "CFI code word"],
                    [
                        ["1", "<0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1>"],
                        ["2", "<1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0>"],
                        ["3", "<1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1,0,1,1>"],
                        ["4 (Reserved)", "<" + ",".join("0" * 32) + ">"],
                    ],
                ),
            ],
        ),
        C(
            "5.3.5",
            "HARQ indicator",
            [
                (
                    "p",
                    "Data arrives to the coding unit in the form of indicators for HARQ "
                    "acknowledgement. The HI is coded with repetition into three bits: a positive "
                    "acknowledgement is encoded as 1 and a negative acknowledgement as 0.",
                ),
            ],
        ),
    ],
)

SPEC_36211 = SpecText(
    kind="TS",
    number="36.211",
    version="15.5.0",
    release=15,
    date="2019-03",
    title="Evolved Universal Terrestrial Radio Access (E-UTRA); Physical channels and modulation",
    clauses=[
        C(
            "1",
            "Scope",
            [("p", "The present document describes the physical channels for evolved UTRA.")],
        ),
        C(
            "4",
            "Frame structure",
            [
                (
                    "p",
                    "The size of various fields in the time domain is "
                    "expressed as a number of time units T_{s} = 1/(15000 \u00d7 2048) seconds.",
                )
            ],
        ),
        C(
            "4.1",
            "Frame structure type 1",
            [
                (
                    "p",
                    "Frame structure type 1 is applicable to both full duplex and half duplex "
                    "FDD. Each radio frame is T_{f} = 307200 \u00b7 T_{s} = 10 ms long and "
                    "consists "
                    "of 20 slots of length T_{slot} = 0.5 ms, numbered from 0 to 19. A subframe is "
                    "defined as two consecutive slots.",
                ),
            ],
        ),
        C(
            "4.2",
            "Frame structure type 2",
            [
                (
                    "p",
                    "Frame structure type 2 is applicable to TDD. Each radio frame consists of "
                    "two half-frames of 5 ms each; the special subframe holds the DwPTS, GP and "
                    "UpPTS fields. The supported uplink-downlink configurations are listed in "
                    "Table 4.2-2.",
                ),
                (
                    "table",
                    "4.2-2",
                    "Uplink-downlink configurations",
                    [
                        "Uplink-downlink configuration",
                        "Switch-point periodicity",
                        "Subframe pattern",
                    ],
                    [
                        ["0", "5 ms", "D S U U U D S U U U"],
                        ["1", "5 ms", "D S U U D D S U U D"],
                        ["2", "5 ms", "D S U D D D S U D D"],
                        ["3", "10 ms", "D S U U U D D D D D"],
                        ["4", "10 ms", "D S U U D D D D D D"],
                        ["5", "10 ms", "D S U D D D D D D D"],
                        ["6", "5 ms", "D S U U U D S U U D"],
                    ],
                ),
            ],
        ),
        C("6", "Downlink", []),
        C("6.2", "Slot structure and physical resource elements", []),
        C(
            "6.2.3",
            "Resource blocks",
            [
                (
                    "p",
                    "A physical resource block is defined as N_{symb}^{DL} consecutive OFDM "
                    "symbols in the time domain and N_{sc}^{RB} = 12 consecutive subcarriers in "
                    "the "
                    "frequency domain. The downlink bandwidth N_{RB}^{DL} ranges from 6 to 110 "
                    "resource blocks. Physical resource blocks are numbered from 0 to "
                    "N_{RB}^{DL} - "
                    "1 in the frequency domain.",
                ),
            ],
        ),
        C("6.3", "General structure for downlink physical channels", []),
        C(
            "6.3.1",
            "Scrambling",
            [
                (
                    "p",
                    "For each codeword q, the block of bits is scrambled prior to modulation "
                    "with a cell-specific sequence. The scrambling sequence generator is "
                    "initialised at the start of each subframe, where the initialisation value "
                    "c_{init} depends on the transport channel type according to",
                ),
                (
                    "eq",
                    "c_{init} = n_{RNTI} \u00b7 2^{14} + q \u00b7 2^{13} + \u230an_{s}/2\u230b "
                    "\u00b7 2^{9} + N_{ID}^{cell}",
                ),
                (
                    "p",
                    "where n_{RNTI} corresponds to the RNTI associated with the PDSCH "
                    "transmission. The scrambling sequence is the pseudo-random sequence of clause "
                    "7.2.",
                ),
            ],
        ),
        C(
            "6.3.2",
            "Modulation",
            [
                (
                    "p",
                    "For each codeword q, the block of scrambled bits is modulated using one of "
                    "the modulation schemes in Table 6.3.2-1, resulting in a block of "
                    "complex-valued "
                    "modulation symbols.",
                ),
                (
                    "table",
                    "6.3.2-1",
                    "Modulation schemes",
                    ["Physical channel", "Modulation schemes"],
                    [
                        ["PDSCH", "QPSK, 16QAM, 64QAM, 256QAM, 1024QAM"],
                        ["PMCH", "QPSK, 16QAM, 64QAM, 256QAM"],
                    ],
                ),
            ],
        ),
        C(
            "6.3.3",
            "Layer mapping",
            [
                (
                    "p",
                    "The complex-valued modulation symbols for each of the codewords to be "
                    "transmitted are mapped onto one or several layers. For transmission on a "
                    "single "
                    "antenna port, a single layer is used and the symbols are copied unchanged.",
                ),
            ],
        ),
        C("6.10", "Reference signals", []),
        C(
            "6.10.1",
            "Cell-specific reference signals",
            [
                (
                    "p",
                    "Cell-specific reference signals are transmitted in all downlink subframes "
                    "in a cell supporting PDSCH transmission, on one or several of antenna ports 0 "
                    "to 3. The reference signal sequence is derived from the pseudo-random "
                    "sequence "
                    "with an initialisation that depends on the slot number, the OFDM symbol "
                    "number "
                    "and the physical layer cell identity.",
                ),
            ],
        ),
        C("7", "Generic functions", []),
        C(
            "7.1",
            "Modulation mapper",
            [
                (
                    "p",
                    "The modulation mapper takes binary digits, 0 or 1, as input and produces "
                    "complex-valued modulation symbols x = I + jQ as output.",
                ),
            ],
        ),
        C(
            "7.1.2",
            "QPSK",
            [
                (
                    "p",
                    "In case of QPSK modulation, pairs of bits b(i), b(i+1) are mapped to "
                    "complex-valued modulation symbols according to Table 7.1.2-1.",
                ),
                (
                    "table",
                    "7.1.2-1",
                    "QPSK modulation mapping",
                    ["b(i), b(i+1)", "I", "Q"],
                    [
                        ["00", "1/\u221a2", "1/\u221a2"],
                        ["01", "1/\u221a2", "-1/\u221a2"],
                        ["10", "-1/\u221a2", "1/\u221a2"],
                        ["11", "-1/\u221a2", "-1/\u221a2"],
                    ],
                ),
            ],
        ),
        C(
            "7.1.3",
            "16QAM",
            [
                (
                    "p",
                    "In case of 16QAM modulation, quadruplets of bits are mapped to "
                    "complex-valued modulation symbols with amplitudes 1/\u221a10 and 3/\u221a10 "
                    "on each of the in-phase and quadrature components.",
                ),
            ],
        ),
        C(
            "7.2",
            "Pseudo-random sequence generation",
            [
                (
                    "p",
                    "Pseudo-random sequences are defined by a length-31 Gold sequence. The "
                    "output sequence c(n) of length M_{PN}, where n = 0, ..., M_{PN} - 1, is "
                    "defined by",
                ),
                ("eq", "c(n) = (x_{1}(n + N_{C}) + x_{2}(n + N_{C})) mod 2"),
                (
                    "p",
                    "where N_{C} = 1600 and the first m-sequence is initialised with x_{1}(0) "
                    "= 1, x_{1}(n) = 0 for n = 1, ..., 30. The initialisation of the second "
                    "m-sequence is given by the value c_{init} of the application using the "
                    "sequence.",
                ),
            ],
        ),
        C("8", "Timing", []),
        C(
            "8.1",
            "Uplink-downlink frame timing",
            [
                (
                    "p",
                    "Transmission of the uplink radio frame number i from the UE starts "
                    "(N_{TA} + N_{TA offset}) \u00d7 T_{s} seconds before the start of the "
                    "corresponding downlink radio frame at the UE.",
                ),
            ],
        ),
    ],
)

SPECS = [SPEC_36212, SPEC_36211]

# (question, spec, clause that answers it)
QUESTIONS: list[tuple[str, str, str]] = [
    ("the polynomial of CRC-24A", "36.212", "5.1.1"),
    ("generator polynomial gCRC24B for code block CRC", "36.212", "5.1.1"),
    ("CRC16 generator polynomial", "36.212", "5.1.1"),
    ("what is the maximum code block size Z", "36.212", "5.1.2"),
    ("how many filler bits are inserted in segmentation", "36.212", "5.1.2"),
    ("which coding scheme and rate is used for the BCH transport channel", "36.212", "5.1.3"),
    ("constraint length of the tail biting convolutional code", "36.212", "5.1.3.1"),
    ("octal generator polynomials 133 171 165", "36.212", "5.1.3.1"),
    (
        "transfer function of the 8-state constituent code of the turbo encoder",
        "36.212",
        "5.1.3.2.1",
    ),
    ("how are the tail bits of the turbo encoder generated", "36.212", "5.1.3.2.2"),
    ("quadratic permutation polynomial interleaver f1 f2 mod K", "36.212", "5.1.3.2.3"),
    ("Table 5.1.3-3", "36.212", "5.1.3.2.3"),
    ("how many columns does the sub-block interleaver matrix have", "36.212", "5.1.4.1.1"),
    ("inter-column permutation pattern", "36.212", "5.1.4.1.1"),
    (
        "starting position k0 in the circular buffer depending on redundancy version",
        "36.212",
        "5.1.4.1.2",
    ),
    ("rate matching of the convolutional code circular buffer", "36.212", "5.1.4.2"),
    ("concatenation of the rate matched code blocks", "36.212", "5.1.5"),
    ("steps for coding the uplink shared channel transport blocks", "36.212", "5.2.2"),
    ("encoding of one bit HARQ-ACK on PUSCH with placeholders", "36.212", "5.2.2.6"),
    ("transport block size of the broadcast channel and TTI", "36.212", "5.3.1"),
    ("PBCH CRC mask for number of transmit antenna ports", "36.212", "5.3.1.1"),
    ("which CRC is attached to the downlink shared channel transport block", "36.212", "5.3.2"),
    ("what does downlink control information carry", "36.212", "5.3.3"),
    ("DCI CRC scrambled with the RNTI", "36.212", "5.3.3.2"),
    ("CFI code words of 32 bits", "36.212", "5.3.4"),
    ("HARQ indicator repetition coding of acknowledgements", "36.212", "5.3.5"),
    ("mapping of uplink transport channels to physical channels", "36.212", "4.1"),
    ("which physical channel carries the DL-SCH and the BCH", "36.212", "4.2"),
    ("definition of a resource element", "36.212", "3.1"),
    ("code block segmentation when B exceeds Z", "36.212", "5.1.2"),
    ("duration of a radio frame and number of slots in FDD frame structure", "36.211", "4.1"),
    ("TDD uplink-downlink configurations and switch point periodicity", "36.211", "4.2"),
    ("number of subcarriers in a resource block N_sc^RB", "36.211", "6.2.3"),
    ("range of the downlink bandwidth N_RB^DL", "36.211", "6.2.3"),
    ("initialisation value c_init of the PDSCH scrambling sequence", "36.211", "6.3.1"),
    ("which modulation schemes are allowed for the PDSCH", "36.211", "6.3.2"),
    ("layer mapping for a single antenna port", "36.211", "6.3.3"),
    ("cell-specific reference signal antenna ports", "36.211", "6.10.1"),
    ("QPSK constellation mapping table of bit pairs", "36.211", "7.1.2"),
    ("16QAM amplitudes", "36.211", "7.1.3"),
    ("length-31 Gold sequence with Nc = 1600", "36.211", "7.2"),
    ("basic time unit Ts", "36.211", "4"),
    ("timing advance of the uplink radio frame relative to downlink", "36.211", "8.1"),
    ("time span of the PDCCH in OFDM symbols indicated by CFI", "36.212", "5.3.4"),
]


# ---- markup --------------------------------------------------------------------------------

_MARK = re.compile(r"([_^])\{([^{}]*)\}")


def plain(text: str) -> str:
    """The text as the readers should give it back: N_{RB}^{DL} -> N_RB^DL."""

    def one(match: re.Match[str]) -> str:
        body = match.group(2)
        return match.group(1) + (body if re.fullmatch(r"[A-Za-z0-9']+", body) else "{" + body + "}")

    return _MARK.sub(one, text)


def _reportlab_markup(text: str) -> str:
    out: list[str] = []
    pos = 0
    for match in _MARK.finditer(text):
        out.append(html.escape(text[pos : match.start()], quote=False))
        tag = "sub" if match.group(1) == "_" else "super"
        out.append(f"<{tag}>{html.escape(match.group(2), quote=False)}</{tag}>")
        pos = match.end()
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


def _segments(text: str) -> list[tuple[str, str]]:
    """[(kind, text)] with kind '' / 'sub' / 'sup' for DOCX runs."""
    out: list[tuple[str, str]] = []
    pos = 0
    for match in _MARK.finditer(text):
        if match.start() > pos:
            out.append(("", text[pos : match.start()]))
        out.append(("sub" if match.group(1) == "_" else "sup", match.group(2)))
        pos = match.end()
    if pos < len(text):
        out.append(("", text[pos:]))
    return out


def table_rows(block: Block) -> list[list[str]]:
    rows = block[4]
    if rows == "QPP":
        return _qpp_rows()
    if rows == "PERM":
        return _permutation_rows()
    return [list(r) for r in rows]


# ---- PDF -----------------------------------------------------------------------------------


def write_pdf(
    spec: SpecText,
    path: Path,
    *,
    bookmarks: bool = True,
    password: str | None = None,
    filler_clauses: int = 0,
    filler_page_breaks: bool = False,
) -> Path:
    """A PDF in the 3GPP layout; filler_clauses adds numbered padding clauses (page count)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import cm
    from reportlab.platypus import (
        PageBreak,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    serif = _serif_font()
    body = ParagraphStyle("body", fontName=serif, fontSize=10, leading=13, spaceAfter=5)
    eq = ParagraphStyle("eq", parent=body, leftIndent=2 * cm, spaceBefore=3, spaceAfter=6)
    item = ParagraphStyle("item", parent=body, leftIndent=1 * cm)
    caption = ParagraphStyle(
        "caption",
        fontName="Helvetica-Bold",
        fontSize=9,
        leading=12,
        alignment=1,
        spaceBefore=6,
        spaceAfter=4,
    )
    heads = {
        level: ParagraphStyle(
            f"h{level}",
            fontName="Helvetica",
            fontSize=size,
            leading=size + 4,
            spaceBefore=10,
            spaceAfter=5,
        )
        for level, size in zip(range(1, 7), (16, 14, 13, 12, 11, 11), strict=True)
    }
    cell = ParagraphStyle("cell", fontName=serif, fontSize=8, leading=10)
    cover_style = ParagraphStyle("cover", fontName="Helvetica-Bold", fontSize=18, leading=24)

    class Doc(SimpleDocTemplate):
        def afterFlowable(self, flowable: Any) -> None:
            level = getattr(flowable, "_outline_level", None)
            if level is not None and bookmarks:
                key = f"c{id(flowable)}"
                self.canv.bookmarkPage(key)
                self.canv.addOutlineEntry(flowable._outline_title, key, level=level - 1)

    def on_page(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        width, height = A4
        canvas.drawString(2 * cm, height - 1.2 * cm, f"Release {spec.release}")
        canvas.drawCentredString(width / 2, height - 1.2 * cm, str(doc.page))
        canvas.drawRightString(width - 2 * cm, height - 1.2 * cm, spec.identity)
        canvas.drawCentredString(width / 2, 1.0 * cm, "3GPP")
        canvas.restoreState()

    encrypt = None
    if password:
        from reportlab.lib.pdfencrypt import StandardEncryption

        encrypt = StandardEncryption(password, canPrint=0)
    doc = Doc(
        str(path),
        pagesize=A4,
        topMargin=2.2 * cm,
        bottomMargin=2 * cm,
        title=spec.identity,
        encrypt=encrypt,
    )
    story: list[Any] = [
        Paragraph(html.escape(spec.identity), cover_style),
        Paragraph(
            html.escape(f"Technical Specification; {spec.title} (Release {spec.release})"), body
        ),
        Spacer(1, 1 * cm),
    ]
    for clause in _with_filler(spec.clauses, filler_clauses, 3 if filler_page_breaks else 14):
        level = clause.number.count(".") + 1
        title = f"{clause.number}\u2003{clause.title}"
        head = Paragraph(html.escape(title), heads[min(level, 6)])
        head._outline_level = level  # type: ignore[attr-defined]
        head._outline_title = f"{clause.number}\t{clause.title}"  # type: ignore[attr-defined]
        if filler_page_breaks and clause.number.startswith("9."):
            story.append(PageBreak())
        story.append(head)
        for block in clause.blocks:
            kind = block[0]
            if kind == "p":
                story.append(Paragraph(_reportlab_markup(block[1]), body))
            elif kind == "eq":
                story.append(Paragraph(_reportlab_markup(block[1]), eq))
            elif kind == "li":
                for n, text in enumerate(block[1], start=1):
                    story.append(Paragraph(f"{n}. " + _reportlab_markup(text), item))
            elif kind == "table":
                _, tid, cap, header, _rows = block
                story.append(Paragraph(html.escape(f"Table {tid}: {cap}"), caption))
                data = [[Paragraph(html.escape(h), cell) for h in header]]
                data += [
                    [Paragraph(html.escape(v), cell) for v in row] for row in table_rows(block)
                ]
                table = Table(data, repeatRows=1, hAlign="CENTER")
                table.setStyle(
                    TableStyle(
                        [
                            ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                            ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                        ]
                    )
                )
                story.append(table)
                story.append(Spacer(1, 6))
    doc.build(story, onFirstPage=on_page, onLaterPages=on_page)
    return path


def _serif_font() -> str:
    """A TrueType serif with the math glyphs (Π, ⌈, ≤); Times lacks them."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if "SpecSerif" in pdfmetrics.getRegisteredFontNames():
        return "SpecSerif"
    candidates = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")]
    try:
        import matplotlib

        candidates.append(Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSerif.ttf")
    except ImportError:
        pass
    for candidate in candidates:
        if candidate.is_file():
            pdfmetrics.registerFont(TTFont("SpecSerif", str(candidate)))
            return "SpecSerif"
    return "Times-Roman"


def _with_filler(clauses: list[Clause], count: int, sentences_each: int = 14) -> list[Clause]:
    if not count:
        return clauses
    extra = [C("9", "Additional procedures", [])]
    words = (
        "subframe symbol codeword layer antenna carrier resource grant bit sequence block "
        "index offset parameter configuration"
    ).split()
    for n in range(1, count + 1):
        sentences = []
        for s in range(sentences_each):
            picked = [words[(n * 7 + s * 3 + k) % len(words)] for k in range(9)]
            sentences.append(
                f"The {picked[0]} {picked[1]} of procedure {n} is derived from "
                f"the {picked[2]} and the {picked[3]} {picked[4]} of step {s}."
            )
        extra.append(
            C(
                f"9.{n}",
                f"Procedure {n} for {words[n % len(words)]} handling",
                [("p", " ".join(sentences[:7])), ("p", " ".join(sentences[7:]))]
                if len(sentences) > 7
                else [("p", " ".join(sentences))],
            )
        )
    return clauses + extra


# ---- DOCX ----------------------------------------------------------------------------------


def write_docx(spec: SpecText, path: Path) -> Path:
    """A DOCX the way 3GPP writes them: Heading n styles, TH captions, EQ formulas, B1 lists."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    styles = document.styles
    for name in ("TH", "EQ", "B1"):
        if name not in [s.name for s in styles]:
            styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
    section = document.sections[0]
    section.header.paragraphs[0].text = f"Release {spec.release}\t\t{spec.identity}"
    section.footer.paragraphs[0].text = "3GPP"
    document.add_paragraph(spec.identity, style="Title")
    document.add_paragraph(f"Technical Specification; {spec.title} (Release {spec.release})")

    def add_runs(paragraph: Any, text: str) -> None:
        for kind, chunk in _segments(text):
            run = paragraph.add_run(chunk)
            if kind == "sub":
                run.font.subscript = True
            elif kind == "sup":
                run.font.superscript = True

    for clause in spec.clauses:
        level = clause.number.count(".") + 1
        document.add_paragraph(f"{clause.number}\t{clause.title}", style=f"Heading {level}")
        for block in clause.blocks:
            kind = block[0]
            if kind == "p":
                add_runs(document.add_paragraph(), block[1])
            elif kind == "eq":
                add_runs(document.add_paragraph(style="EQ"), block[1])
            elif kind == "li":
                for n, text in enumerate(block[1], start=1):
                    add_runs(document.add_paragraph(style="B1"), f"{n}.\t" + text)
            elif kind == "table":
                _, tid, cap, header, _rows = block
                document.add_paragraph(f"Table {tid}: {cap}", style="TH")
                rows = table_rows(block)
                table = document.add_table(rows=1 + len(rows), cols=len(header))
                for col, value in enumerate(header):
                    table.cell(0, col).text = value
                for r, row in enumerate(rows, start=1):
                    for col, value in enumerate(row):
                        table.cell(r, col).text = value
    document.save(str(path))
    return path


def write_non_spec_pdf(path: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.drawString(72, 760, "Quarterly newsletter of the cycling club")
    pdf.drawString(72, 740, "Our next ride starts at the old bridge at 9 am.")
    pdf.showPage()
    pdf.save()
    return path


def expected_clauses(spec: SpecText) -> list[tuple[str, str]]:
    return [(c.number, c.title) for c in spec.clauses]
