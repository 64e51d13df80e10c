`default_nettype none
// Shared widths, formats and configuration types of the LTE Cat-1 downlink baseband.
//
// The fixed-point formats (<NAME>_W = all bits including the sign, <NAME>_FRAC = fractional
// bits): a word is signed two's complement, value = raw / 2^<NAME>_FRAC, unless its comment
// says unsigned. Saturation is symmetric (the most negative code, e.g. -128 for an 8-bit LLR,
// is never produced: +-(2^(W-1) - 1) are the limits) and rounding is round half up: add half
// an LSB, then truncate (an arithmetic shift right).
// Each block uses a subset of this shared table, so unused-parameter warnings are expected here.
/* verilator lint_off UNUSEDPARAM */
package lte_baseband_pkg;

  // ------------------------------------------------------------------ fixed-point formats
  localparam int IQ_SAMPLE_W = 16;  // ADC -> ofdm_demodulator, Q0.15
  localparam int IQ_SAMPLE_FRAC = 15;
  localparam int FFT_OUT_W = 16;  // ofdm_demodulator -> demapper/estimator, Q4.11
  localparam int FFT_OUT_FRAC = 11;
  localparam int CHAN_EST_W = 16;  // channel_estimator -> equalizer, Q4.11
  localparam int CHAN_EST_FRAC = 11;
  localparam int NOISE_VAR_W = 24;  // channel_estimator -> equalizer, Q1.22 (unsigned use)
  localparam int NOISE_VAR_FRAC = 22;
  localparam int EQ_OUT_W = 16;  // equalizer -> qam_demodulator, Q3.12
  localparam int EQ_OUT_FRAC = 12;
  localparam int LLR_SCALE_W = 16;  // equalizer -> qam_demodulator, 1/N0 per RE, Q7.8
  localparam int LLR_SCALE_FRAC = 8;
  localparam int LLR_W = 8;  // channel LLR, positive = bit 1, saturating +-127, Q5.2
  localparam int LLR_FRAC = 2;
  localparam int EXTRINSIC_W = 10;  // turbo_decoder internal, Q7.2
  localparam int EXTRINSIC_FRAC = 2;
  localparam int STATE_METRIC_W = 14;  // turbo_decoder alpha/beta, Q11.2
  localparam int STATE_METRIC_FRAC = 2;
  localparam int APP_LLR_W = 12;  // turbo_decoder -> crc_checker, Q9.2
  localparam int APP_LLR_FRAC = 2;

  // Most positive code of a symmetric-saturating LLR word.
  localparam int LLR_MAX = (1 << (LLR_W - 1)) - 1;

  // ------------------------------------------------------------------ AXI-Stream payloads
  // Complex samples travel as {I, Q} with I in the upper half of the word, Q in the lower.
  localparam int IQ_TDATA_W = 2 * IQ_SAMPLE_W;
  localparam int FFT_TDATA_W = 2 * FFT_OUT_W;
  localparam int CHAN_TDATA_W = 2 * CHAN_EST_W;
  localparam int EQ_IN_TDATA_W = FFT_TDATA_W + CHAN_TDATA_W;  // equalizer {Y, H}
  localparam int EQ_TDATA_W = 2 * EQ_OUT_W;
  localparam int LLR_TDATA_W = LLR_W;
  localparam int CRC_W = 24;  // CRC-24A / CRC-24B parity length, TS 36.212 5.1.1
  localparam int CRC_TDATA_W = CRC_W + 1;  // {pass, syndrome}
  localparam int BYTE_TDATA_W = 8;  // MAC PDU bytes

  // ------------------------------------------------------------------ numerology (10 MHz)
  localparam int FFT_SIZE = 1024;
  localparam int SAMPLE_RATE_HZ = 15_360_000;
  localparam int CP_LEN_FIRST = 80;  // normal CP, first symbol of a slot (TS 36.211 6.12)
  localparam int CP_LEN_OTHER = 72;
  localparam int N_SC_RB = 12;
  localparam int N_RB_DL_MAX = 50;
  localparam int N_SYMB_SUBFRAME = 14;
  localparam int N_CELL_ID_W = 9;  // 0..503
  localparam int RNTI_W = 16;
  localparam int SUBFRAME_W = 4;  // 0..9
  localparam int GOLD_NC = 1600;  // TS 36.211 7.2
  localparam int C_INIT_W = 31;

  // ------------------------------------------------------------------ configuration types
  // Modulation order of TS 36.211 7.1 (Qm = 2, 4, 6).
  typedef enum logic [1:0] {
    MOD_QPSK  = 2'd0,
    MOD_16QAM = 2'd1,
    MOD_64QAM = 2'd2
  } modulation_e;

  typedef enum logic {
    CP_NORMAL   = 1'b0,
    CP_EXTENDED = 1'b1
  } cp_type_e;

  // Channel bandwidths of TS 36.101 5.6 (only BW_10MHZ is built into the datapath).
  typedef enum logic [2:0] {
    BW_1M4  = 3'd0,
    BW_3M   = 3'd1,
    BW_5M   = 3'd2,
    BW_10M  = 3'd3,
    BW_15M  = 3'd4,
    BW_20M  = 3'd5
  } bandwidth_e;

  typedef enum logic {
    CRC_24A = 1'b0,
    CRC_24B = 1'b1
  } crc_type_e;

  localparam int RB_W = 7;  // up to 100 RBs
  localparam int MCS_W = 5;  // I_MCS 0..31, TS 36.213 7.1.7
  // Code blocks per transport block: a Cat-1 TB (<= 10296 bits) segments into at most two
  // (TS 36.306 4.1, TS 36.212 5.1.2); the receiver's configuration registers hold this many.
  localparam int CB_MAX = 2;
  // Downlink HARQ processes of an FDD UE (TS 36.213 7, TS 36.321 5.3.2) and the soft-buffer
  // words one process holds per soft d stream: the largest sum of K_r + 4 over the code blocks
  // of a Cat-1 transport block (two code blocks of K = 5184: 2 x (5184 + 4)).
  // 8 processes x 3 streams x HARQ_PROC_DEPTH LLRs = 249024 soft bits of the 250368 a Cat-1 UE
  // has (TS 36.306 Table 4.1-1), at LLR_W bits each.
  localparam int HARQ_PROC = 8;
  localparam int HARQ_ID_W = 3;
  localparam int HARQ_PROC_DEPTH = 10376;
  localparam int HARQ_SOFT_BITS = HARQ_PROC * 3 * HARQ_PROC_DEPTH * LLR_W;  // 1992192

  // Contiguous (type-2 localised) PDSCH allocation of one subframe.
  typedef struct packed {
    logic [RB_W-1:0]  rb_start;
    logic [RB_W-1:0]  rb_count;
    logic [MCS_W-1:0] mcs;
  } resource_alloc_t;

  // Generator polynomials without the x^24 term, TS 36.212 5.1.1.
  localparam logic [CRC_W-1:0] CRC24A_POLY = 24'h864CFB;
  localparam logic [CRC_W-1:0] CRC24B_POLY = 24'h800063;

endpackage
/* verilator lint_on UNUSEDPARAM */

`default_nettype wire
