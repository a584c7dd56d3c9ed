#!/usr/bin/env python3
"""Writes blunt_body.su2: triangles around a blunt body in a supersonic stream along +x.

The body is a half cylinder of radius 1 facing the stream (its centre at the origin) with a short
afterbody (y = +-1 out to x = 0.5). The outer boundary is the parabola x = -2.4 + a y^2 through
(0.5, +-6), upstream of the bow shock at Mach 3 and above (Billig 1967's shock shape), and the
outlet is the plane x = 0.5, where the flow is supersonic. Markers: body, inflow (the parabola),
outflow (the plane). The mesh is structured (n_around x n_out quadrilaterals, each split along
alternating diagonals) and mirror-symmetric about y = 0 to the last bit: the lower half is
computed and mirrored. Run it to regenerate the committed file:

    python3 make_blunt_body.py > blunt_body.su2
"""
import math

n_around = 60  # cells along the body (even: the diagonals then mirror too)
n_out = 30  # cells from the body to the outer boundary
aft = 0.5  # the afterbody's end and the outlet plane
nose = -2.4  # where the outer boundary crosses y = 0
height = 6.0  # the outer boundary's half-height at the outlet
stretch = 1.04  # each cell from the body outwards this much thicker than the last


def body(t):
    """t in [0, 1]: from (aft, -1) along the afterbody and the quarter circle to (-1, 0)."""
    flat = aft
    arc = math.pi / 2
    s = t * (flat + arc)
    if s <= flat:
        return aft - s, -1.0
    angle = 1.5 * math.pi - (s - flat)  # from 270 degrees down to 180
    return math.cos(angle), math.sin(angle)


def outer(t):
    """t in [0, 1]: along the parabola from (aft, -height) to (nose, 0), by arc length."""
    a = (aft - nose) / height**2

    def arc(y):  # arc length of x = nose + a y^2 from 0 to y
        u = 2 * a * y
        return (u * math.sqrt(1 + u * u) + math.asinh(u)) / (4 * a)

    total = arc(height)
    target = (1 - t) * total
    lo, hi = 0.0, height
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if arc(mid) < target else (lo, mid)
    y = 0.5 * (lo + hi)
    return nose + a * y * y, -y


def main():
    half = n_around // 2
    weights = [stretch**j for j in range(n_out)]
    frac = [sum(weights[:j]) / sum(weights) for j in range(n_out + 1)]
    points = {}  # (i, j) -> (x, y), i around from the lower outlet, j outwards
    for i in range(half + 1):
        t = i / half
        bx, by = body(t)
        ox, oy = outer(t)
        for j in range(n_out + 1):
            f = frac[j]
            x, y = bx + f * (ox - bx), by + f * (oy - by)
            if i == half:
                y = 0.0
            points[(i, j)] = (x, y)
            points[(n_around - i, j)] = (x, -y)
    index = {}
    coords = []
    for i in range(n_around + 1):
        for j in range(n_out + 1):
            index[(i, j)] = len(coords)
            coords.append(points[(i, j)])
    triangles = []
    for i in range(n_around):
        for j in range(n_out):
            # Counter-clockwise: i runs from the lower outlet round the nose, j outwards.
            a, b, c, d = index[(i, j)], index[(i + 1, j)], index[(i + 1, j + 1)], index[(i, j + 1)]
            if (i + j) % 2 == 0:
                triangles += [(a, b, c), (a, c, d)]
            else:
                triangles += [(a, b, d), (b, c, d)]
    markers = {
        "body": [(index[(i, 0)], index[(i + 1, 0)]) for i in range(n_around)],
        "inflow": [(index[(i, n_out)], index[(i + 1, n_out)]) for i in range(n_around)],
        "outflow": [(index[(0, j)], index[(0, j + 1)]) for j in range(n_out)]
        + [(index[(n_around, j)], index[(n_around, j + 1)]) for j in range(n_out)],
    }
    print("% A blunt body in a supersonic stream, written by make_blunt_body.py")
    print("NDIME= 2")
    print(f"NELEM= {len(triangles)}")
    for k, (a, b, c) in enumerate(triangles):
        print(f"5 {a} {b} {c} {k}")
    print(f"NPOIN= {len(coords)}")
    for k, (x, y) in enumerate(coords):
        print(f"{x:.10g} {y:.10g} {k}")
    print(f"NMARK= {len(markers)}")
    for name, lines in markers.items():
        print(f"MARKER_TAG= {name}")
        print(f"MARKER_ELEMS= {len(lines)}")
        for a, b in lines:
            print(f"3 {a} {b}")


if __name__ == "__main__":
    main()
