#!/usr/bin/env python3
"""Draws Baton's app icon (a relay baton across a rounded square) and
writes every size the bundles need into icons/. Run: python3 scripts/make-icons.py"""
import os
from PIL import Image, ImageDraw

OUT = os.path.join(os.path.dirname(__file__), "..", "icons")
S = 1024


def draw(size=S):
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    # Vertical gradient in a rounded square.
    grad = Image.new("RGBA", (size, size))
    top, bottom = (79, 70, 229), (14, 165, 233)
    for y in range(size):
        t = y / (size - 1)
        c = tuple(int(top[i] + (bottom[i] - top[i]) * t) for i in range(3)) + (255,)
        ImageDraw.Draw(grad).line([(0, y), (size, y)], fill=c)
    mask = Image.new("L", (size, size), 0)
    m = size * 0.06
    ImageDraw.Draw(mask).rounded_rectangle([m, m, size - m, size - m], radius=size * 0.22, fill=255)
    img.paste(grad, (0, 0), mask)
    d = ImageDraw.Draw(img)
    # The baton: a thick rounded bar on the diagonal, with two bands.
    w = size * 0.13
    a, b = (size * 0.28, size * 0.72), (size * 0.72, size * 0.28)
    d.line([a, b], fill=(255, 255, 255, 255), width=int(w))
    for p in (a, b):
        d.ellipse([p[0] - w / 2, p[1] - w / 2, p[0] + w / 2, p[1] + w / 2], fill=(255, 255, 255, 255))
    for t in (0.36, 0.64):
        cx, cy = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        r = w * 0.62
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(250, 204, 21, 255))
    return img


def main():
    os.makedirs(OUT, exist_ok=True)
    big = draw()
    for name, px in [("32x32.png", 32), ("64x64.png", 64), ("128x128.png", 128),
                     ("128x128@2x.png", 256), ("icon.png", 512)]:
        big.resize((px, px), Image.LANCZOS).save(os.path.join(OUT, name))
    big.save(os.path.join(OUT, "icon.ico"), sizes=[(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)])
    big.save(os.path.join(OUT, "icon.icns"))


if __name__ == "__main__":
    main()
