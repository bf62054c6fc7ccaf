"""Issue 14, items 5-7: `solve --out` refuses paths it would damage and writes like a
normal file; data sizes and kinds are refused from the .npy headers, before loading;
only real numeric data with nonempty dimensions is accepted; `--dim` sizes are limited."""
import errno
import io
import os
import shutil
import stat
import warnings
import zipfile

import numpy as np
import pytest

import solvers
from convexcheck import analyze
from convexcheck.problem.admissible import MAX_ENTRIES, SizeError, sample_value
from convexcheck.problem.model import Attributes
from convexcheck_cli import convexcheck_main as main
from solvers.task.prepare import MAX_DATA_ENTRIES
from tensorcalc import TensorCalcError

LOGISTIC = "examples/logistic_regression.tc"
LOGISTIC_PATH = os.path.abspath(LOGISTIC)       # for tests that change the working folder
LEAST_SQUARES = ("parameter X[m, n]\nparameter y[m]\nvariable w[n]\n"
                 "minimize sum((X *(ij,j->i) w - y)^2)")


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.sign(X @ np.array([1.0, -2.0, 0.5]) + rng.standard_normal(60))
    path = tmp_path / "data.npz"
    np.savez(path, X=X, y=y)
    return path


def _solve(capsys, *args):
    code = main(["solve", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ----------------------------------------------------------------------------- 5. --out

def _refused_before_solving(capsys, args, *words):
    code, out, err = _solve(capsys, *args)
    assert code == 2 and "solving" not in out, (code, out, err)
    assert err.startswith("convexcheck: error: --out")
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_out_equal_to_the_data_file_is_refused(data, tmp_path, capsys, spelling, monkeypatch):
    before = data.read_bytes()
    monkeypatch.chdir(tmp_path)
    out = {"same": data, "dot": "./data.npz", "symlink": tmp_path / "link.npz",
           "hardlink": tmp_path / "hard.npz"}[spelling]
    if spelling == "symlink":
        os.symlink(data, out)
    if spelling == "hardlink":
        os.link(data, out)
    _refused_before_solving(capsys, [LOGISTIC_PATH, "--data", data, "--out", out], "--data")
    assert data.read_bytes() == before


def test_out_equal_to_the_problem_file_is_refused(data, tmp_path, capsys):
    problem = tmp_path / "p.tc"
    shutil.copy(LOGISTIC, problem)
    text = problem.read_text()
    _refused_before_solving(capsys, [problem, "--data", data, "--out", problem], "problem file")
    assert problem.read_text() == text


def test_out_may_be_the_x0_file_to_resume_from_it(data, tmp_path, capsys):
    x0 = tmp_path / "x0.npz"
    np.savez(x0, w=np.ones(3))
    assert _solve(capsys, LOGISTIC, "--data", data, "--x0", x0, "--out", x0)[0] == 0
    with np.load(x0) as saved:
        assert bool(saved["solve.success"]) and not np.array_equal(saved["w"], np.ones(3))


def test_out_directory_long_name_empty_and_bad_folder_are_refused(data, tmp_path, capsys):
    base = [LOGISTIC, "--data", data, "--out"]
    _refused_before_solving(capsys, base + [tmp_path], "directory")
    assert tmp_path.is_dir()
    _refused_before_solving(capsys, base + [tmp_path / ("w" * 300 + ".npz")], "too long")
    _refused_before_solving(capsys, base + [""], "empty")
    _refused_before_solving(capsys, base + [data / "w.npz"], "not a directory")
    _refused_before_solving(capsys, base + [tmp_path / "missing" / "w.npz"], "cannot write")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_out_in_a_read_only_folder_is_refused(data, tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        _refused_before_solving(capsys, [LOGISTIC, "--data", data, "--out", folder / "w.npz"],
                                "cannot write")
    finally:
        folder.chmod(0o700)


def test_out_fifo_is_refused_and_left_in_place(data, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _refused_before_solving(capsys, [LOGISTIC, "--data", data, "--out", fifo], "not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_out_gets_the_mode_a_normal_open_would_give(data, tmp_path, capsys, umask, mode):
    out = tmp_path / "w.npz"
    old = os.umask(umask)
    try:
        code, _, _ = _solve(capsys, LOGISTIC, "--data", data, "--out", out)
    finally:
        os.umask(old)
    assert code == 0 and stat.S_IMODE(os.stat(out).st_mode) == mode


def test_overwritten_out_keeps_its_mode(data, tmp_path, capsys):
    out = tmp_path / "w.npz"
    np.savez(out, w=np.zeros(3))
    out.chmod(0o640)
    assert _solve(capsys, LOGISTIC, "--data", data, "--out", out)[0] == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640 and np.load(out)["w"].any()


def test_out_is_fsynced_before_the_rename(data, tmp_path, capsys, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    assert _solve(capsys, LOGISTIC, "--data", data, "--out", tmp_path / "w.npz")[0] == 0
    assert "fsync" in events and "replace" in events
    assert events.index("fsync") < events.index("replace")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.npz", "w.npz"]   # no temporary left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(data, tmp_path, capsys, monkeypatch):
    out = tmp_path / "w.npz"
    np.savez(out, w=np.arange(3.0))

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(np, "savez", disk_full)
    code, _, err = _solve(capsys, LOGISTIC, "--data", data, "--out", out)
    monkeypatch.undo()
    assert code == 2 and "--out" in err and "No space left" in err
    assert np.load(out)["w"].tolist() == [0.0, 1.0, 2.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.npz", "w.npz"]


def test_out_stores_the_status_beside_the_solution(data, tmp_path, capsys):
    out = tmp_path / "w.npz"
    assert _solve(capsys, LOGISTIC, "--data", data, "--max-iter", "1", "--out", out)[0] == 1
    with np.load(out) as saved:
        assert int(saved["solve.status"]) == 1 and not bool(saved["solve.success"])
        assert int(saved["solve.iterations"]) == 1 and "limit" in str(saved["solve.message"])
        assert saved["w"].shape == (3,)
    assert _solve(capsys, LOGISTIC, "--data", data, "--out", out)[0] == 0
    with np.load(out) as saved:
        assert int(saved["solve.status"]) == 0 and bool(saved["solve.success"])
        assert int(saved["solve.iterations"]) >= 1 and np.isfinite(float(saved["solve.fun"]))
    # the solution file is a valid starting point: the status entries are not variables
    code, text, _ = _solve(capsys, LOGISTIC, "--data", data, "--x0", out, "--json")
    assert code == 0 and '"nit": 0' in text


# ----------------------------------------------------------------------------- 6. sizes

def _npz_member(path, name, descr, shape, payload=b"", compress=False):
    """An archive whose member has the given .npy header (the data may be short)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False,
                                                   "shape": shape})
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.writestr(name + ".npy", header.getvalue() + payload)


@pytest.mark.parametrize("shape", [(10**12,), (MAX_DATA_ENTRIES + 1,), (20_000, 20_000)])
def test_oversized_member_is_refused_from_its_header(data, tmp_path, capsys, shape):
    bomb = tmp_path / "bomb.npz"
    _npz_member(bomb, "X", "<f8", shape, b"\0" * 4096)
    code, _, err = _solve(capsys, LOGISTIC, "--data", bomb)
    assert code == 2 and "'X'" in err and f"{MAX_DATA_ENTRIES:,}" in err and "entries" in err


def test_archive_total_is_limited(tmp_path, capsys):
    many = tmp_path / "many.npz"
    half = (MAX_DATA_ENTRIES // 2 + 1,)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                   "shape": half})
    with zipfile.ZipFile(many, "w") as archive:
        archive.writestr("X.npy", header.getvalue())
        archive.writestr("y.npy", header.getvalue())
    code, _, err = _solve(capsys, LOGISTIC, "--data", many)
    assert code == 2 and "altogether" in err and "'y'" in err


def test_non_npy_member_is_refused(tmp_path, capsys):
    odd = tmp_path / "odd.npz"
    with zipfile.ZipFile(odd, "w") as archive:
        archive.writestr("X.npy", b"\0" * 100)
    code, _, err = _solve(capsys, LOGISTIC, "--data", odd)
    assert code == 2 and "'X'" in err and ".npy" in err


@pytest.mark.slow
def test_compressed_zip_bomb_is_refused_without_inflating_it(tmp_path, capsys):
    """A few MB on disk, 1.6 GB inflated: refused from the header."""
    bomb = tmp_path / "bomb.npz"
    header = io.BytesIO()
    n = MAX_DATA_ENTRIES + 1
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                   "shape": (n,)})
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("X.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            chunk = bytes(8 << 20)
            for _ in range(n * 8 // len(chunk) + 1):
                member.write(chunk)
    assert bomb.stat().st_size < 20 << 20
    code, _, err = _solve(capsys, LOGISTIC, "--data", bomb)
    assert code == 2 and f"{MAX_DATA_ENTRIES:,}" in err


def test_dim_sizes_are_refused_before_sampling_allocates():
    problem = "variable X[n, n]\nminimize sum(exp(X)) + sum(X^4)"
    with pytest.raises(SizeError, match=r"variable X\[n, n\].*10,000,000,000 entries.*n=100000"):
        analyze(problem, dims={"n": 100_000}, samples=2)


def test_sample_value_refuses_a_shape_over_the_limit():
    with pytest.raises(SizeError, match=f"{MAX_ENTRIES:,}"):
        sample_value(Attributes(), (10**6, 10**6), np.random.default_rng(0))


# ----------------------------------------------------------------------------- 7. kinds of data

@pytest.mark.parametrize("y, kind", [
    (np.ones(60) + 1j, "complex128"),
    (np.array(["1"] * 60), "<U1"),
    (np.array([b"1"] * 60), "|S1"),
    (np.array(["2024-01-01"] * 60, dtype="datetime64[D]"), "datetime64[D]"),
    (np.arange(60).astype("timedelta64[s]"), "timedelta64[s]"),
])
def test_data_that_is_not_real_numbers_is_refused(tmp_path, capsys, y, kind):
    path = tmp_path / "bad.npz"
    np.savez(path, X=np.ones((60, 3)), y=y)
    code, _, err = _solve(capsys, LOGISTIC, "--data", path)
    assert code == 2 and "'y'" in err and kind in err and "real numbers" in err, err


def test_object_array_is_refused_without_unpickling(tmp_path, capsys):
    path = tmp_path / "obj.npz"
    np.savez(path, X=np.ones((60, 3)), y=np.array([1.0] * 59 + [None], dtype=object))
    code, _, err = _solve(capsys, LOGISTIC, "--data", path)
    assert code == 2 and "'y'" in err and "object" in err


@pytest.mark.parametrize("value, kind", [
    (np.ones(4) * (1 + 2j), "complex128"), (np.array(["1", "2", "3", "4"]), "<U1"),
    (np.array([1.0, None, 2.0, 3.0], dtype=object), "object"),
    ([1.0, 2.0, 3.0, 4.0 + 0j], "complex128"),
])
def test_python_api_refuses_data_and_x0_that_are_not_real(value, kind):
    good = {"X": np.eye(4)[:, :2], "y": np.ones(4)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")                # no ComplexWarning: refused, not cast
        with pytest.raises(solvers.SolverError, match=rf"data\['y'\].*{kind}"):
            solvers.minimize(LEAST_SQUARES, data={**good, "y": value})
        with pytest.raises(solvers.SolverError, match=rf"x0\['w'\].*{kind}"):
            solvers.minimize(LEAST_SQUARES, data=good, x0={"w": np.asarray(value)[:2]})


def test_integer_and_boolean_data_are_accepted():
    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.int32)
    y = np.array([True, False, True])
    result = solvers.minimize(LEAST_SQUARES, data={"X": X, "y": y})
    assert result.success
    np.testing.assert_allclose(result.x["w"], np.linalg.lstsq(X, y.astype(float), rcond=None)[0],
                               atol=1e-10)


@pytest.mark.parametrize("X, y, dim", [
    (np.ones((0, 3)), np.ones(0), "'m'"),
    (np.ones((5, 0)), np.ones(5), "'n'"),
])
def test_empty_dimension_is_refused(tmp_path, capsys, X, y, dim):
    with pytest.raises(solvers.SolverError, match=f"dimension {dim} has length 0"):
        solvers.minimize(LEAST_SQUARES, data={"X": X, "y": y})
    path = tmp_path / "empty.npz"
    np.savez(path, X=X, y=y)
    code, _, err = _solve(capsys, LOGISTIC, "--data", path)
    assert code == 2 and "length 0" in err


@pytest.mark.parametrize("value", [np.ones(3) + 1j, np.array(["1", "2", "3"]), np.zeros(3, dtype="datetime64[s]")])
def test_analyze_data_refuses_what_is_not_real(value):
    """analyze(data=...) applies the same dtype rule as the solvers (it read complex data
    as its real part with a warning, and text as numbers)."""
    text = "parameter a[3]\nvariable x[3]\nminimize sum((x - a)^2)"
    with pytest.raises(TensorCalcError, match=r"data\['a'\] is not an array of numbers: it has dtype"):
        analyze(text, samples=2, data={"a": value})
