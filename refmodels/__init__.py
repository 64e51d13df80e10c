"""Bit-exact reference models of the LTE Cat-1 UE downlink PHY (3GPP Rel-8+, PDSCH, 10 MHz).

Bits are ``numpy.uint8`` arrays of 0/1.  Soft values (LLRs) follow one convention everywhere:
``L = ln P(b=1) - ln P(b=0)``, so a positive LLR means bit 1 and the hard decision is ``L > 0``.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
