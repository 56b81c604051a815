#!/usr/bin/env python3
"""Compares a screenshot with its golden, pixel by pixel (Tests/Fixtures/preview-goldens/README.md).

    compare_png.py GOLDEN.png ACTUAL.png [--tolerance 48] [--max-fraction 0.005]

A pixel differs when one of its channels (R, G, B, A) differs by more than --tolerance (0-255);
the images match when they have the same size and at most --max-fraction of their pixels
differ. Exit 0: they match; 1: they do not (the counts are printed); 2: a file is not a PNG this
reads (8-bit greyscale, RGB, grey+alpha or RGBA, not interlaced: what Chromium writes).
Only the standard library (zlib): no image package needed."""
import sys
import zlib


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{path}: not a PNG')
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos:pos + 4], 'big')
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            ihdr = body
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    if ihdr is None or len(ihdr) != 13:
        raise ValueError(f'{path}: no IHDR')
    width, height = int.from_bytes(ihdr[0:4], 'big'), int.from_bytes(ihdr[4:8], 'big')
    depth, colour, interlace = ihdr[8], ihdr[9], ihdr[12]
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f'{path}: bit depth {depth}, colour type {colour}, interlace {interlace} not read')
    if width * height > 64_000_000:
        raise ValueError(f'{path}: {width}x{height} is too large')
    raw = zlib.decompress(b''.join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise ValueError(f'{path}: {len(raw)} bytes of image data, expected {height * (stride + 1)}')
    out = bytearray(height * stride)
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = prev[i]
                c = prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif f != 0:
            raise ValueError(f'{path}: row {y} has filter {f}')
        out[y * stride:(y + 1) * stride] = line
        prev = line
    # Every pixel as RGBA, so images of different colour types compare.
    if channels == 4:
        return width, height, bytes(out)
    rgba = bytearray(width * height * 4)
    for k in range(width * height):
        px = out[k * channels:(k + 1) * channels]
        if channels == 1:
            rgba[k * 4:k * 4 + 4] = bytes((px[0], px[0], px[0], 255))
        elif channels == 2:
            rgba[k * 4:k * 4 + 4] = bytes((px[0], px[0], px[0], px[1]))
        else:
            rgba[k * 4:k * 4 + 4] = bytes((px[0], px[1], px[2], 255))
    return width, height, bytes(rgba)


def main(argv):
    args, tolerance, max_fraction = [], 48, 0.005
    it = iter(argv)
    for a in it:
        if a == '--tolerance':
            tolerance = int(next(it))
        elif a == '--max-fraction':
            max_fraction = float(next(it))
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        gw, gh, golden = decode(args[0])
        aw, ah, actual = decode(args[1])
    except (ValueError, OSError, zlib.error) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    if (gw, gh) != (aw, ah):
        print(f'sizes differ: golden {gw}x{gh}, actual {aw}x{ah}')
        return 1
    differing = 0
    for k in range(0, len(golden), 4):
        g, a = golden[k:k + 4], actual[k:k + 4]
        if g != a and max(abs(g[0] - a[0]), abs(g[1] - a[1]), abs(g[2] - a[2]), abs(g[3] - a[3])) > tolerance:
            differing += 1
    total = gw * gh
    limit = int(total * max_fraction)
    print(f'{differing} of {total} pixels differ by more than {tolerance} in a channel (at most {limit} may)')
    return 0 if differing <= limit else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
