"""A DOCX package (or a 3GPP zip holding one) opened with every part bounded before it is read.

A zip states each member's uncompressed size in its directory; a hostile file can state a
small archive that inflates to gigabytes. Every member's stated size, the sum of all sizes,
the member count and the compression ratio are checked against limits before anything is
inflated, and each read is capped again in case the directory lies.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import IO

from silicon_agent.servers.core.workspace import InvalidInput

MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 256 * 1024 * 1024  # 38.212's document.xml is ~40 MB
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_RATIO = 200  # XML compresses ~15x; a bomb of zeros ~1000x
RATIO_FLOOR_BYTES = 1024 * 1024  # small members may compress as they like


class UnreadableDocx(ValueError):
    """Corrupt DOCX, or a zip without a .docx inside."""


@dataclass(frozen=True)
class Limits:
    members: int = MAX_MEMBERS
    member_bytes: int = MAX_MEMBER_BYTES
    total_bytes: int = MAX_TOTAL_BYTES
    ratio: int = MAX_RATIO


def _refuse(message: str, limit: str) -> InvalidInput:
    return InvalidInput(
        f"path: {message} (limit {limit})",
        argument="path",
        hint="A real specification stays far below this; check the file is the spec you meant.",
    )


def check_members(archive: zipfile.ZipFile, limits: Limits, label: str) -> None:
    """Refuse the archive on its directory alone, before any member is inflated."""
    infos = archive.infolist()
    if len(infos) > limits.members:
        raise _refuse(f"{label} has {len(infos)} members", f"max_members={limits.members}")
    total = 0
    for info in infos:
        if info.file_size > limits.member_bytes:
            raise _refuse(
                f"{label} member {info.filename} inflates to {info.file_size} bytes",
                f"max_member_bytes={limits.member_bytes}",
            )
        if info.file_size > RATIO_FLOOR_BYTES and info.file_size > limits.ratio * max(
            info.compress_size, 1
        ):
            ratio = info.file_size // max(info.compress_size, 1)
            raise _refuse(
                f"{label} member {info.filename} inflates {ratio} times its packed size",
                f"max_ratio={limits.ratio}",
            )
        total += info.file_size
    if total > limits.total_bytes:
        raise _refuse(
            f"{label} inflates to {total} bytes in all", f"max_total_bytes={limits.total_bytes}"
        )


class DocxPackage:
    """The parts of one .docx, read on demand and each read capped."""

    def __init__(self, archive: zipfile.ZipFile, limits: Limits):
        self._archive = archive
        self._limits = limits
        self._names = set(archive.namelist())

    def names(self) -> list[str]:
        return sorted(self._names)

    def has(self, name: str) -> bool:
        return name in self._names

    def read(self, name: str) -> bytes:
        cap = self._limits.member_bytes
        try:
            with self._archive.open(name) as member:
                data = member.read(cap + 1)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise UnreadableDocx(f"cannot read {name} ({type(exc).__name__}: {exc})") from exc
        if len(data) > cap:  # the directory understated it
            raise _refuse(f"member {name} inflates past its stated size", f"max_member_bytes={cap}")
        return data


def open_docx(handle: IO[bytes], limits: Limits | None = None) -> DocxPackage:
    """The .docx in `handle`: a .docx itself, or a zip holding one (3GPP's distribution)."""
    limits = limits or Limits()
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UnreadableDocx("not a DOCX (a DOCX is a zip archive)") from exc
    check_members(archive, limits, "the file")
    names = archive.namelist()
    if "word/document.xml" in names:
        return DocxPackage(archive, limits)
    inner = [n for n in names if n.lower().endswith(".docx")]
    if not inner:
        raise UnreadableDocx(
            "the zip holds no .docx (3GPP zips hold one; .doc is not supported: save it as .docx)"
        )
    data = DocxPackage(archive, limits).read(inner[0])
    try:
        nested = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UnreadableDocx(f"{inner[0]} is not a DOCX") from exc
    check_members(nested, limits, inner[0])
    if "word/document.xml" not in nested.namelist():
        raise UnreadableDocx(f"{inner[0]} has no word/document.xml")
    return DocxPackage(nested, limits)
