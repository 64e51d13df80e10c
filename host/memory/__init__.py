"""Task memory: notes of failures, hypotheses and fixes with their outcomes, per run and
optionally per workspace, retrieved by nearness for the Debug and RTL roles."""
