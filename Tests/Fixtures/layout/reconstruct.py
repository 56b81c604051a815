#!/usr/bin/env python3
"""An independent reconstruction of the layout pass's system for one small screen, written from
docs/layout.md alone (not from the engine's export), solved with kiwisolver. Used by
Tests/LoomLayoutTests/ReconstructionTests.swift:

  reconstruct.py WIDTH HEIGHT SCALE SAFE_TOP SAFE_LEFT SAFE_RIGHT
                                       prints {path: [x, y, w, h]} (rounded to the pixel grid)

The screen (ReconstructionTests.screen), with the tests' measurer (10 points a character,
20-point lines, at size 17):

  vstack (root, spacing 8, packed, alignment fill)
    label #title "Title text"                      intrinsic 100 x 20
    hstack #row (spacing 4, fill_equally, center)
      label #a "ab"                                intrinsic 20 x 20
      label #b "abcd"                              intrinsic 40 x 20
    view #box ["height == 100", "width == 200 @ 750"]
Exits 0 with "skipped:" on stderr without kiwisolver.
"""
import json, math, sys

try:
    import kiwisolver as kiwi
except ImportError:
    print("skipped: kiwisolver is not installed", file=sys.stderr)
    sys.exit(0)

W, H, S = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
SAFE_TOP, SAFE_LEFT, SAFE_RIGHT = float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
REQUIRED = 1001001000.0


def strength(priority):
    return REQUIRED if priority >= 1000 else priority * 1000.0


paths = ["root", "root/children[0]", "root/children[1]", "root/children[1]/children[0]",
         "root/children[1]/children[1]", "root/children[2]"]
ROOT, TITLE, ROW, A, B, BOX = range(6)
solver = kiwi.Solver()
v = [[kiwi.Variable("%s.%s" % (p, k)) for k in ("left", "top", "width", "height")] for p in paths]
for node in v:
    for x in node:  # numbered in creation order, as scripts/layout-compare does
        solver.addEditVariable(x, "weak")
        solver.removeEditVariable(x)


def L(i): return v[i][0]
def T(i): return v[i][1]
def Wd(i): return v[i][2]
def Ht(i): return v[i][3]


def add(c, priority=1000):
    try:
        solver.addConstraint(c | strength(priority))
    except kiwi.UnsatisfiableConstraint:
        pass


def intrinsic(i, w, h):  # hugging @ 250, compression resistance @ 750; width pair first
    add(Wd(i) <= w, 250); add(Wd(i) >= w, 750)
    add(Ht(i) <= h, 250); add(Ht(i) >= h, 750)


# 1. the root stack is pinned to the safe area's top and sides; its height is its content's
add(L(ROOT) == SAFE_LEFT); add(T(ROOT) == SAFE_TOP); add(Wd(ROOT) == W - SAFE_LEFT - SAFE_RIGHT)
# 2. per node in preorder: sizes >= 0, the role's constraints for its children, intrinsic size
def sizes(i):
    add(Wd(i) >= 0); add(Ht(i) >= 0)

sizes(ROOT)
# vstack root: hugs (priority 1), axis chain packed (last end <= stack end, == @ 1), alignment fill
add(Wd(ROOT) == 0, 1); add(Ht(ROOT) == 0, 1)
kids = [TITLE, ROW, BOX]
add(T(kids[0]) == T(ROOT))
for a, b in zip(kids, kids[1:]):
    add(T(b) == T(a) + Ht(a) + 8)
add(T(kids[-1]) + Ht(kids[-1]) <= T(ROOT) + Ht(ROOT))
add(T(kids[-1]) + Ht(kids[-1]) == T(ROOT) + Ht(ROOT), 1)
for c in kids:
    add(L(c) == L(ROOT)); add(L(c) + Wd(c) == L(ROOT) + Wd(ROOT))
sizes(TITLE); intrinsic(TITLE, 100, 20)
sizes(ROW)
add(Wd(ROW) == 0, 1); add(Ht(ROW) == 0, 1)
add(L(A) == L(ROW))
add(L(B) == L(A) + Wd(A) + 4)
add(Wd(B) == Wd(A))
add(L(B) + Wd(B) == L(ROW) + Wd(ROW))
for c in (A, B):
    add(T(c) + Ht(c) * 0.5 == T(ROW) + Ht(ROW) * 0.5); add(Ht(c) <= Ht(ROW))
sizes(A); intrinsic(A, 20, 20)
sizes(B); intrinsic(B, 40, 20)
sizes(BOX)
# 3. own constraints
add(Ht(BOX) == 100)
add(Wd(BOX) == 200, 750)
solver.updateVariables()


def edge(x):
    r = x * S
    r = (math.floor(r + 0.5) if r >= 0 else -math.floor(-r + 0.5)) / S
    return 0.0 if r == 0 else r


out = {}
for i, p in enumerate(paths):
    x, y, w, h = (q.value() for q in v[i])
    X, Y = edge(x), edge(y)
    out[p] = [X, Y, edge(x + w) - X, edge(y + h) - Y]
print(json.dumps(out))
