"""Campaigns of independent tasks (regressions, mutants, BER chunks, bench problems) run through
one executor seam: in-process, a local process pool, or a Ray cluster. Imports nothing of
``servers``, ``host``, ``hdl`` or ``refmodels``, so all of them may use it."""
