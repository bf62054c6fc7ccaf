"""Independent NumPy truth check: random admissible points/parameters, midpoint (second-difference)
tests along random directions at several step sizes, plus domain-convexity of pairs."""
import re

import numpy as np

DECL = re.compile(r"^(variable|parameter)\s+(\w+)(?:\[([^\]]*)\])?\s*(.*)$")


def parse_decls(text):
    out = []
    for line in text.splitlines():
        m = DECL.match(line.strip())
        if m:
            kind, name, dims, attrs = m.groups()
            dims = [d.strip() for d in dims.split(",")] if dims else []
            out.append((kind, name, dims, attrs.split()))
    return out


def bounds(attrs):
    lo, hi, lo_s, hi_s, dfn = -np.inf, np.inf, False, False, None
    i = 0
    while i < len(attrs):
        a = attrs[i]
        if a == "nonneg": lo = max(lo, 0.0)
        elif a == "pos": lo, lo_s = max(lo, 0.0), True
        elif a == "nonpos": hi = min(hi, 0.0)
        elif a == "neg": hi, hi_s = min(hi, 0.0), True
        elif a in (">=", ">", "<=", "<"):
            v = float(attrs[i + 1]); i += 1
            if a[0] == ">": lo, lo_s = v, a == ">"
            else: hi, hi_s = v, a == "<"
        elif a in ("symmetric", "psd", "pd", "nsd", "nd"): dfn = a
        i += 1
    return lo, hi, lo_s, hi_s, dfn


def sample(shape, attrs, rng):
    lo, hi, lo_s, hi_s, dfn = bounds(attrs)
    s = rng.choice([0.1, 0.5, 1.0, 2.0, 4.0])
    if dfn:
        n = shape[0]
        B = rng.standard_normal((n, rng.integers(1, n + 1) if dfn in ("psd", "nsd") else n)) * np.sqrt(s)
        if dfn == "symmetric":
            M = rng.standard_normal((n, n)) * s; return (M + M.T) / 2
        M = B @ B.T + (1e-3 * s * np.eye(n) if dfn in ("pd", "nd") else 0)
        if dfn in ("psd", "pd") and rng.random() < 0.3:     # eigenvalues spread
            M = M + rng.random() * s * np.eye(n)
        return M if dfn in ("psd", "pd") else -M
    z = rng.standard_normal(shape) * s
    if rng.random() < 0.1:
        z = np.round(z)                                      # exact zeros/integers sometimes
    if np.isfinite(lo) and np.isfinite(hi):
        return lo + (hi - lo) * rng.uniform(0.001 if lo_s else 0, 0.999 if hi_s else 1, shape)
    if np.isfinite(lo):
        v = lo + np.abs(z)
        return np.where(v <= lo, lo + 1e-3, v) if lo_s else v
    if np.isfinite(hi):
        v = hi - np.abs(z)
        return np.where(v >= hi, hi - 1e-3, v) if hi_s else v
    return z


def admissible(v, attrs):
    lo, hi, lo_s, hi_s, dfn = bounds(attrs)
    v = np.asarray(v)
    ok = np.all(v > lo) if lo_s else np.all(v >= lo)
    ok = ok and (np.all(v < hi) if hi_s else np.all(v <= hi))
    if dfn in ("psd", "pd", "nsd", "nd"):
        ev = np.linalg.eigvalsh((v + v.T) / 2) * (1 if dfn in ("psd", "pd") else -1)
        ok = ok and (ev.min() > 0 if dfn in ("pd", "nd") else ev.min() >= -1e-12)
    return bool(ok)


def direction(shape, attrs, rng):
    d = rng.standard_normal(shape)
    if bounds(attrs)[4]:
        d = (d + d.T) / 2
    return d


def check(text, fn, dims_choices=(2, 3, 4), trials=3000, seed=0):
    """Return (convex_witness, concave_witness, domain_witness, n_tests)."""
    rng = np.random.default_rng(seed)
    decls = parse_decls(text)
    wit = {"convex": None, "concave": None, "domain": None}
    n_tests = 0
    with np.errstate(all="ignore"):
        for t in range(trials):
            size = {}
            def shp(dims):
                return tuple(int(d) if d.isdigit() else size.setdefault(d, int(rng.choice(dims_choices))) for d in dims)
            shapes = {name: shp(dims) for _, name, dims, _ in decls}
            attrs = {name: a for _, name, _, a in decls}
            params = {n: sample(shapes[n], attrs[n], rng) for k, n, _, _ in decls if k == "parameter"}
            vars_ = [n for k, n, _, _ in decls if k == "variable"]

            def f(point):
                if not all(admissible(point[n], attrs[n]) for n in vars_):
                    return np.nan
                try:
                    val = fn(**params, **point)
                except np.linalg.LinAlgError:
                    return np.nan
                return float(val) if np.isfinite(val) else np.nan
            x = {n: sample(shapes[n], attrs[n], rng) for n in vars_}
            fx = f(x)
            if np.isnan(fx):
                continue
            # pair test: another admissible point, midpoint
            y = {n: sample(shapes[n], attrs[n], rng) for n in vars_}
            fy = f(y)
            if not np.isnan(fy):
                mid = {n: (x[n] + y[n]) / 2 for n in vars_}
                fm = f(mid)
                if np.isnan(fm):
                    wit["domain"] = wit["domain"] or (params, x, y)
                else:
                    _judge(fx, fy, fm, wit, (params, x, y))
                    n_tests += 1
            d = {n: direction(shapes[n], attrs[n], rng) for n in vars_}
            for h in (1e-3, 1e-2, 0.1, 0.5, 1.0, 3.0):
                p = {n: x[n] + h * d[n] for n in vars_}
                m = {n: x[n] - h * d[n] for n in vars_}
                fp, fm_ = f(p), f(m)
                if np.isnan(fp) or np.isnan(fm_):
                    continue
                _judge(fp, fm_, fx, wit, (params, x, d, h))
                n_tests += 1
    return wit, n_tests


def _judge(fa, fb, fmid, wit, where):
    s = fa + fb - 2 * fmid
    tol = 1e-9 * (abs(fa) + abs(fb) + 2 * abs(fmid)) + 1e-12
    if s < -tol and wit["convex"] is None:
        wit["convex"] = (s, where)
    if s > tol and wit["concave"] is None:
        wit["concave"] = (s, where)
