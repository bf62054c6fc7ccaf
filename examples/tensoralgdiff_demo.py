"""The TensorAlgDiff demo (Urban & van der Smagt 2017, section 6), in tensorcalc.
==============================================================================

    f[i, j] = exp(-sum(k, 0, 4, (a[i, k] + b[j, k])^2 * c[i, i] + d[i + k]^3))

with a 3x5, b 4x5, c 3x3, d 8 and f 3x4. Prints the element-wise derivative of
l = sum(df .* f) with respect to each argument (Alg. 4: inserted sums, Kronecker guards,
transformed indices, Fourier-Motzkin ranges) and checks every Jacobian, evaluated and
compiled, against central finite differences.

    python examples/tensoralgdiff_demo.py
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

import tensorcalc as tc
from tensorcalc.printing.index import element_derivatives

# sphinx-gallery runs the script from examples/ with no __file__: "_" stands for it there
HERE = pathlib.Path(globals().get("__file__", "_")).resolve().parent

TEXT = "f[i, j] = exp(-sum(k, 0, 4, (a[i, k] + b[j, k])^2 * c[i, i] + d[i + k]^3))"
SHAPES = {"a": (3, 5), "b": (4, 5), "c": (3, 3), "d": (8,), "f": (3, 4)}


def central_difference(f, values, name, h=1e-6):
    x = values[name]
    out = np.zeros(f(values).shape + x.shape)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        up, down = dict(values, **{name: x + e}), dict(values, **{name: x - e})
        out[(...,) + idx] = (f(up) - f(down)) / (2 * h)
    return out


def main() -> int:
    for name, text in element_derivatives(TEXT, SHAPES).items():
        print(text, "\n")
    f = tc.parse_def(TEXT, SHAPES)
    rng = np.random.default_rng(0)
    values = {n: 0.5 * rng.normal(size=s) for n, s in SHAPES.items() if n != "f"}
    value = tc.compile(f)
    print(f"{'wrt':4s} {'shape':>14s} {'max |J - FD|':>14s} {'max |J|':>10s} {'compiled == evaluated':>22s}")
    worst = 0.0
    for name in "abcd":
        J = tc.derivative(f, name)
        evaluated, compiled = tc.evaluate(J, values), tc.compile(J)(values)
        fd = central_difference(value, values, name)
        err = np.abs(evaluated - fd).max()
        worst = max(worst, err / max(1.0, np.abs(fd).max()))
        print(f"{name:4s} {str(evaluated.shape):>14s} {err:14.2e} {np.abs(fd).max():10.3f} "
              f"{str(np.allclose(compiled, evaluated, rtol=1e-12, atol=1e-14)):>22s}")
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
