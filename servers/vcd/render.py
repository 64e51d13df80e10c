"""Waveform pictures: a list of drawing operations laid out once, written as SVG text or drawn
into a PNG with Pillow, so both formats show the same lanes, labels and time axis."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from html import escape

from .values import Raw, short_value, to_int

LANE_H = 30
WAVE_H = 18
AXIS_H = 28
PAD = 8
CHAR_W = 7.2  # average glyph width of the 12 px font, for fitting bus labels
PLOT_W = 960
MAX_LANE_SEGMENTS = 4000

COLORS = {
    "bg": "#ffffff",
    "grid": "#e3e6ea",
    "axis": "#444444",
    "label": "#111111",
    "wave": "#0a7d32",
    "bus": "#1f5fa8",
    "bus_fill": "#e6effa",
    "x": "#c62828",
    "x_fill": "#fde3e3",
    "z": "#b8860b",
    "text": "#222222",
    "marker": "#d81b60",
}


@dataclass
class Lane:
    name: str
    width: int
    initial: Raw
    changes: list[tuple[int, Raw]]  # strictly inside (start, end]


@dataclass
class Drawing:
    width: int
    height: int
    ops: list[tuple] = field(default_factory=list)

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str, w: float = 1) -> None:
        self.ops.append(("line", x1, y1, x2, y2, color, w))

    def poly(self, points: list[tuple[float, float]], fill: str, outline: str) -> None:
        self.ops.append(("poly", points, fill, outline))

    def text(self, x: float, y: float, text: str, color: str, anchor: str = "start") -> None:
        self.ops.append(("text", x, y, text, color, anchor))


def layout(
    lanes: list[Lane], start: int, end: int, unit: str, marker: int | None = None
) -> Drawing:
    label_w = int(min(260, max(80, max(len(lane.name) for lane in lanes) * CHAR_W + 2 * PAD)))
    width = label_w + PLOT_W + 3 * PAD  # room for the last time label
    height = AXIS_H + LANE_H * len(lanes) + PAD
    drawing = Drawing(width, height)
    span = max(1, end - start)

    def x_of(t: int) -> float:
        return label_w + (t - start) * PLOT_W / span

    _axis(drawing, start, end, unit, x_of, label_w)
    for row, lane in enumerate(lanes):
        top = AXIS_H + row * LANE_H + (LANE_H - WAVE_H) / 2
        drawing.text(PAD, top + WAVE_H - 4, lane.name, COLORS["label"])
        points = [(start, lane.initial)] + [c for c in lane.changes if start < c[0] <= end]
        segments = [
            (x_of(t), x_of(points[i + 1][0]) if i + 1 < len(points) else x_of(end), v)
            for i, (t, v) in enumerate(points)
        ]
        if len(segments) > MAX_LANE_SEGMENTS or len(segments) > PLOT_W:
            drawing.poly(
                [(x_of(start), top), (x_of(end), top), (x_of(end), top + WAVE_H),
                 (x_of(start), top + WAVE_H)],
                COLORS["bus_fill"], COLORS["bus"],
            )  # fmt: skip
            drawing.text(
                (x_of(start) + x_of(end)) / 2, top + WAVE_H - 5,
                f"{len(segments)} changes: zoom in", COLORS["text"], "middle",
            )  # fmt: skip
            continue
        if lane.width == 1:
            _bit_lane(drawing, segments, top)
        else:
            _bus_lane(drawing, segments, top, lane.width)
    if marker is not None and start <= marker <= end:
        drawing.line(x_of(marker), AXIS_H - 4, x_of(marker), height - PAD, COLORS["marker"], 1.5)
    return drawing


def _axis(drawing: Drawing, start: int, end: int, unit: str, x_of, label_w: int) -> None:
    span = max(1, end - start)
    raw_step = span / 8
    magnitude = 10 ** max(0, len(str(int(raw_step))) - 1)
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw_step)
    first = ((start + step - 1) // step) * step
    drawing.line(label_w, AXIS_H - 6, label_w + PLOT_W, AXIS_H - 6, COLORS["axis"])
    t = first
    while t <= end:
        x = x_of(t)
        drawing.line(x, AXIS_H - 10, x, AXIS_H - 6, COLORS["axis"])
        drawing.line(x, AXIS_H - 6, x, drawing.height - PAD, COLORS["grid"])
        drawing.text(x, AXIS_H - 13, str(t), COLORS["axis"], "middle")
        t += step
    drawing.text(PAD, AXIS_H - 13, f"time ({unit})", COLORS["axis"])


def _bit_lane(drawing: Drawing, segments: list[tuple[float, float, Raw]], top: float) -> None:
    high, low, mid = top, top + WAVE_H, top + WAVE_H / 2
    previous_y: float | None = None
    for x1, x2, raw in segments:
        value = to_int(raw)
        if value is None:
            text = str(raw).lower() if raw is not None else "x"
            if "z" in text and "x" not in text:
                drawing.line(x1, mid, x2, mid, COLORS["z"], 1.5)
                y = mid
            else:
                drawing.poly([(x1, high), (x2, high), (x2, low), (x1, low)], COLORS["x_fill"],
                             COLORS["x"])  # fmt: skip
                y = None
        else:
            y = high if value & 1 else low
            drawing.line(x1, y, x2, y, COLORS["wave"], 1.5)
        if previous_y is not None and y is not None and y != previous_y:
            drawing.line(x1, previous_y, x1, y, COLORS["wave"], 1.5)
        previous_y = y


def _bus_lane(
    drawing: Drawing, segments: list[tuple[float, float, Raw]], top: float, width: int
) -> None:
    high, low, mid = top, top + WAVE_H, top + WAVE_H / 2
    for x1, x2, raw in segments:
        slant = min(3.0, (x2 - x1) / 2)
        known = to_int(raw) is not None
        fill = COLORS["bus_fill"] if known else COLORS["x_fill"]
        edge = COLORS["bus"] if known else COLORS["x"]
        drawing.poly(
            [(x1, mid), (x1 + slant, high), (x2 - slant, high), (x2, mid), (x2 - slant, low),
             (x1 + slant, low)],
            fill, edge,
        )  # fmt: skip
        label = short_value(raw, width)
        if len(label) * CHAR_W + 4 <= x2 - x1:
            drawing.text((x1 + x2) / 2, low - 5, label, COLORS["text"], "middle")
        elif x2 - x1 > 2 * CHAR_W + 4:
            fit = max(1, int((x2 - x1 - 4) / CHAR_W) - 1)
            drawing.text((x1 + x2) / 2, low - 5, label[:fit] + "…", COLORS["text"], "middle")


def to_svg(drawing: Drawing) -> str:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{drawing.width}" '
        f'height="{drawing.height}" viewBox="0 0 {drawing.width} {drawing.height}" '
        'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f'<rect width="100%" height="100%" fill="{COLORS["bg"]}"/>',
    ]
    for op in drawing.ops:
        if op[0] == "line":
            _, x1, y1, x2, y2, color, w = op
            out.append(
                f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                f'stroke="{color}" stroke-width="{w}"/>'
            )
        elif op[0] == "poly":
            _, points, fill, outline = op
            pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            out.append(f'<polygon points="{pts}" fill="{fill}" stroke="{outline}"/>')
        else:
            _, x, y, text, color, anchor = op
            out.append(
                f'<text x="{x:.1f}" y="{y:.1f}" fill="{color}" text-anchor="{anchor}">'
                f"{escape(text)}</text>"
            )
    out.append("</svg>")
    return "\n".join(out)


def to_png(drawing: Drawing) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (drawing.width, drawing.height), COLORS["bg"])
    draw = ImageDraw.Draw(image)
    try:
        font = ImageFont.load_default(size=12)
    except TypeError:  # Pillow without FreeType: the bitmap font still labels the lanes
        font = ImageFont.load_default()
    for op in drawing.ops:
        if op[0] == "line":
            _, x1, y1, x2, y2, color, w = op
            draw.line([(x1, y1), (x2, y2)], fill=color, width=max(1, round(w)))
        elif op[0] == "poly":
            _, points, fill, outline = op
            draw.polygon(points, fill=fill, outline=outline)
        else:
            _, x, y, text, color, anchor = op
            length = draw.textlength(text, font=font)
            left = x - length / 2 if anchor == "middle" else x
            draw.text((left, y - 11), text, fill=color, font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
