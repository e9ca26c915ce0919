"""A small PNG reader for screenshots (8-bit RGB or RGBA, not interlaced): enough to
look at the pixels a browser drew, with zlib and nothing else.

>>> import struct, zlib
>>> def chunk(kind, data):
...     body = kind + data
...     return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
>>> rows = b"\\x00" + bytes([255, 0, 0, 0, 0, 255])  # one row: a red and a blue pixel
>>> png = (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
...        + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
>>> read_png(png).pixels
[(255, 0, 0), (0, 0, 255)]
"""

from __future__ import annotations

import struct
import zlib

import attrs

SIGNATURE = b"\x89PNG\r\n\x1a\n"


@attrs.frozen
class Image:
    width: int
    height: int
    pixels: list[tuple[int, int, int]]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(data: bytes, width: int, height: int, channels: int) -> bytearray:
    stride = width * channels
    out = bytearray(stride * height)
    previous = bytearray(stride)
    position = 0
    for row in range(height):
        kind = data[position]
        line = bytearray(data[position + 1 : position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + _paeth(left, up, corner)) & 0xFF
            elif kind != 0:
                raise ValueError(f"unknown PNG filter {kind}")
        out[row * stride : (row + 1) * stride] = line
        previous = line
    return out


def read_png(data: bytes) -> Image:
    """The RGB pixels of a PNG (alpha dropped), row by row."""
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    position = len(SIGNATURE)
    header = b""
    compressed = bytearray()
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            compressed += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}")
    channels = 3 if color == 2 else 4
    raw = _unfilter(zlib.decompress(bytes(compressed)), width, height, channels)
    pixels = [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), channels)]
    return Image(width, height, pixels)
