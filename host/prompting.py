"""The user-turn text of each role step, built only from what a generating role may see:
the specification, the interface, dependency interfaces, librarian notes and feedback."""

from __future__ import annotations

import json
from typing import Any

from silicon_agent.suite.design import Block, Design

from .distill import is_watchdog, no_output_message
from .roles.prompts import FIX_ONLY, REWORK
from .state import BlockState, Feedback


def block_brief(design: Design, block: Block, state: BlockState, step: str, limit: int) -> str:
    lines = [
        f"Block: {block.name}",
        f"Step: {step}",
        f"Attempt: {state.iteration + 1} of {limit}",
        f"Top module: {block.top}",
        "",
        "Specification:",
        block.spec.strip() or "(see the interface)",
        "",
        "Interface (implement exactly this module header):",
        block.interface.strip(),
    ]
    if block.refs_3gpp:
        lines += ["", "3GPP references: " + ", ".join(block.refs_3gpp)]
    deps = design.dependencies(block.name)
    if deps:
        lines += ["", "Modules this block may instantiate (verified, do not rewrite them):"]
        # A dependency reworked at this block's request has the header it passed with.
        rework = state.rework or {}
        for d in deps:
            header = d.interface.strip()
            if rework.get("block") == d.name and rework.get("interface"):
                header = f"{rework['interface']}  (changed at this block's request)"
            lines.append(f"- {d.top}: {header}")
    if state.librarian_notes:
        lines += ["", "Spec Librarian notes (cited):", state.librarian_notes]
    return "\n".join(lines)


def format_diagnostics(diagnostics: list[dict[str, Any]]) -> str:
    out = []
    for d in diagnostics:
        where = f"{d.get('file', '?')}:{d.get('line', '?')}"
        code = f"/{d['code']}" if d.get("code") else ""
        text = (
            f"- {d.get('severity', 'error')} {where} [{d.get('category')}{code}] {d.get('message')}"
        )
        if d.get("hint"):
            text += f"\n  hint: {d['hint']}"
        if d.get("snippet"):
            text += "\n" + "\n".join("    " + s for s in str(d["snippet"]).splitlines())
        out.append(text)
    return "\n".join(out) or "(none)"


def code_block(code: str | None) -> str:
    return f"```systemverilog\n{code or ''}\n```"


def failure_text(feedback: Feedback) -> str:
    # A design the harness's watchdog stopped: no output, said so, and its streams'
    # handshakes; never the watchdog's beat count as a first mismatch of a signal.
    stalled = no_output_message(feedback.mismatch) if is_watchdog(feedback.mismatch) else None
    parts = [f"Result of the previous attempt: {feedback.kind}: {stalled or feedback.summary}"]
    if feedback.mismatch and not stalled:
        m = feedback.mismatch
        parts.append(
            f"First mismatch: signal={m.get('signal')} time={m.get('time')} "
            f"cycle={m.get('cycle')} expected={m.get('expected')} actual={m.get('actual')}"
        )
    if feedback.diagnostics:
        parts.append("Diagnostics:\n" + format_diagnostics(feedback.diagnostics))
    streams = (feedback.explanation or "").removeprefix(stalled or "").strip()
    if stalled and streams:
        parts.append("The design's streams until the harness stopped it:\n" + streams)
    elif feedback.explanation and not stalled:
        parts.append("Waveform explanation of the first mismatch:\n" + feedback.explanation)
    if feedback.hypotheses:
        parts.append("Reflection (hypotheses):\n" + json.dumps(feedback.hypotheses, indent=1))
    if feedback.testbench:
        parts.append(
            "The Verification Engineer's smoke testbench that reported this (visible to you):\n"
            + code_block(feedback.testbench)
        )
    return "\n\n".join(parts)


def smoke_top(block: Block) -> str:
    return f"tb_smoke_{block.top}"


def testbench_prompt(design: Design, block: Block, state: BlockState) -> str:
    """The Verification Engineer's brief: the block's spec and interface only (never the
    design's code, never the hidden testbench); with a problem, the repair of its own bench."""
    lines = [
        f"Block: {block.name}",
        "Step: testbench",
        f"Top module under test: {block.top}",
        "",
        "Specification:",
        block.spec.strip() or "(see the interface)",
        "",
        "Interface of the module under test:",
        block.interface.strip(),
    ]
    deps = design.dependencies(block.name)
    if deps:
        lines += ["", "It may instantiate: " + "; ".join(d.top for d in deps)]
    if state.librarian_notes:
        lines += ["", "Spec Librarian notes (cited):", state.librarian_notes]
    lines += [
        "",
        f"Write a short self-checking smoke testbench, module `{smoke_top(block)}`, that "
        f"instantiates `{block.top}` as `dut` through exactly this interface, applies reset and "
        "a few directed cases from the specification, prints one line per mismatch "
        "`MISMATCH time=%0t cycle=%0d signal=<port> expected=%h actual=%h`, exactly one "
        "`Mismatches: %0d in %0d samples` line and then `$finish`, with a time-out. It is run "
        "on every attempt before the project's own verification; check only what the "
        "specification states.",
    ]
    smoke = state.smoke
    if smoke is not None and smoke.problem:
        lines += [
            "",
            "Your previous smoke testbench:",
            code_block(smoke.code),
            "Problem with it:",
            smoke.problem,
            "Fix ONLY this problem in the testbench; do not weaken the checks that are right.",
        ]
    return "\n".join(lines)


def fix_prompt(brief: str, state: BlockState) -> str:
    assert state.feedback is not None
    rule = REWORK if state.feedback.kind == "dependency" else FIX_ONLY
    return "\n\n".join(
        [brief, "Previous code:", code_block(state.code), failure_text(state.feedback), rule]
    )


def reflect_prompt(brief: str, state: BlockState) -> str:
    assert state.feedback is not None
    return "\n\n".join(
        [
            brief,
            "Failing code:",
            code_block(state.code),
            failure_text(state.feedback),
            "Give ranked hypotheses for the root cause and a fix plan. Do not write code.",
        ]
    )


def escalation_prompt(
    block: Block, state: BlockState, errors: list[dict[str, Any]], reason: str
) -> str:
    history = "\n".join(
        f"- iteration {e['iteration']}: {e['signature']} :: {e['message'][:300]}"
        for e in errors[-12:]
    )
    last = failure_text(state.feedback) if state.feedback else "(no feedback)"
    return (
        f"Block: {block.name}\nStep: escalate\nReason: {reason}\n"
        f"Iterations used: {state.iteration}\n\nError history:\n{history or '(none)'}\n\n"
        f"Last result:\n{last}\n\nLast code:\n{code_block(state.code)}\n\n"
        "Write the escalation for a human engineer."
    )
