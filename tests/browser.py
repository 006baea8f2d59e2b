"""Render a page in headless Chromium: its DOM after the browser has built it, and a screenshot
(decoded here to RGB pixels, so a test can ask whether a chart's colour is on screen)."""

from __future__ import annotations

import struct
import subprocess
import zlib
from pathlib import Path

from tests.real_clients import HANG_GUARD_SECONDS, chromium

_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
          "--disable-dev-shm-usage"]


def dom(page: Path, size: str = "1200,900") -> str:
    """The DOM once built (and once the page's own scripts have run) in a window of ``size``."""
    done = subprocess.run([chromium(), *_FLAGS, f"--window-size={size}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(page: Path, out: Path, size: str = "1200,900") -> list[list[tuple[int, int, int]]]:
    """The page as the browser paints it: rows of RGB pixels (also written to ``out`` as PNG)."""
    done = subprocess.run([chromium(), *_FLAGS, f"--window-size={size}", f"--screenshot={out}", page.as_uri()],
                          capture_output=True, text=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert done.returncode == 0 and out.is_file(), done.stderr[-2000:]
    return decode_png(out.read_bytes())


def decode_png(data: bytes) -> list[list[tuple[int, int, int]]]:
    """8-bit RGB/RGBA, non-interlaced PNG (what Chromium writes) as rows of RGB pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[list[tuple[int, int, int]]] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        kind = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])  # type: ignore[misc]
        prev = line
    return rows


def count_colour(pixels: list[list[tuple[int, int, int]]], rgb: tuple[int, int, int], slack: int = 8) -> int:
    return sum(1 for row in pixels for p in row if all(abs(p[k] - rgb[k]) <= slack for k in range(3)))
