"""The waveform tool render: a waveform picture, saved in the workspace."""

from __future__ import annotations

import asyncio
import re
import time as _time
from typing import Literal

from silicon_agent.servers.core.workspace import InvalidInput, atomic_write

from . import render
from .models import (
    RenderInfo,
    WaveIssue,
)
from .wave_base import WaveSession


class RenderTools(WaveSession):
    async def render(
        self,
        file: str,
        signals: list[str],
        start: int | str = 0,
        end: int | str | None = None,
        format: Literal["svg", "png"] = "png",
        out: str | None = None,
        marker: int | str | None = None,
    ) -> tuple[RenderInfo, bytes | None]:
        def work() -> tuple[RenderInfo, bytes | None]:
            wave, cached = self._open(file)
            if format not in ("svg", "png"):
                raise InvalidInput("format: 'svg' or 'png'", argument="format")
            infos = self._signals(wave, signals)
            if len(infos) > 32:
                raise InvalidInput("signals: at most 32 lanes per picture", argument="signals")
            lo = wave.parse_time(start, "start")
            hi = wave.end_time() if end is None else wave.parse_time(end, "end")
            if hi <= lo:
                raise InvalidInput(f"end: {hi} must be after start {lo}", argument="end")
            mark = wave.parse_time(marker, "marker") if marker is not None else None
            lanes = []
            for info in infos:
                initial, a, b, sig = self._changes(wave, info, lo, hi)
                take = min(b, a + render.MAX_LANE_SEGMENTS + 1)
                # pywellen refuses an empty slice
                changes = [(int(t), v) for t, v in sig[a:take]] if take > a else []
                if b > take:
                    changes += [(hi, None)] * (b - take > 0)
                    changes = changes[: render.MAX_LANE_SEGMENTS + 2]
                lanes.append(render.Lane(info.name, info.width, initial, changes))
            drawing = render.layout(lanes, lo, hi, wave.timescale, mark)
            data = render.to_svg(drawing).encode() if format == "svg" else render.to_png(drawing)
            if out is not None:
                target = self.workspace.resolve(out, argument="out", must_exist=False)
                if target.suffix.lower() != f".{format}":
                    raise InvalidInput(f"out: must end in .{format}", argument="out")
            else:
                stem = re.sub(r"[^A-Za-z0-9_.-]", "_", wave.path.stem)
                target = self.workspace.keep_dir("vcd", "renders") / (
                    f"{stem}-{lo}-{hi}-{int(_time.time() * 1000) % 10**9}.{format}"
                )
            atomic_write(target, data)
            info = RenderInfo(
                **self._base(wave, cached),
                path=self.workspace.relative(target),
                format=format,
                width=drawing.width,
                height=drawing.height,
                signals=[i.name for i in infos],
                start=lo,
                end=hi,
            )
            return info, data

        try:
            return await asyncio.to_thread(work)
        except InvalidInput as exc:
            issue = WaveIssue(message=str(exc), argument=exc.argument, hint=exc.hint)
            return RenderInfo(ok=False, file=file, error=issue), None
