"""`convexcheck solve`: output, --json, --out, --blocks, exit statuses and bad input (issue 5, item 7)."""
import json
import os

import numpy as np
import pytest

from convexcheck_cli import convexcheck_main as main

LOGISTIC = "examples/logistic_regression.tc"


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 4))
    y = np.sign(X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.standard_normal(120))
    path = tmp_path / "data.npz"
    np.savez(path, X=X, y=y)
    return path, X, y


def test_solve_prints_verdict_iterations_and_writes_the_solution(data, tmp_path, capsys):
    path, X, y = data
    out = tmp_path / "w.npz"
    assert main(["solve", LOGISTIC, "--data", str(path), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "convexity: convex" in text and "lambda^2/2" in text and "status 0" in text
    w = np.load(out)["w"]
    z = y * (X @ w)
    gradient = -X.T @ (y / (1 + np.exp(z)))          # independent of the compiled code
    assert np.abs(gradient).max() <= 1e-7


def test_json_result(data, capsys):
    path, _, _ = data
    assert main(["solve", LOGISTIC, "--data", str(path), "--json", "--method", "lbfgs"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["success"] and report["method"] == "lbfgs" and report["convexity"] == "convex"
    assert len(report["history"]) == report["nit"] + 1 and len(report["x"]["w"]) == 4
    assert report["max_abs_jac"]["w"] <= 1e-8


def test_iteration_limit_exits_1(data, capsys):
    path, _, _ = data
    assert main(["solve", LOGISTIC, "--data", str(path), "--max-iter", "1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == 1


def test_blocks_run_block_newton(tmp_path, capsys):
    rng = np.random.default_rng(1)
    m, n, r = 12, 10, 2
    M = (rng.random((m, n)) < 0.6).astype(float)
    Y = M * (rng.standard_normal((m, r)) @ rng.standard_normal((r, n)))
    np.savez(tmp_path / "d.npz", M=M, Y=Y)
    np.savez(tmp_path / "x0.npz", U=rng.standard_normal((m, r)), V=rng.standard_normal((n, r)))
    args = ["solve", "examples/matrix_factorisation.tc", "--data", str(tmp_path / "d.npz"),
            "--x0", str(tmp_path / "x0.npz"), "--blocks", "U,V", "--json", "--max-iter", "3"]
    assert main(args) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert report["convexity"] == {"U": "convex", "V": "convex"}
    assert [h["block"] for h in report["history"][:2]] == ["U", "V"]
    values = [h["f"] for h in report["history"]]
    assert all(b <= a + 1e-9 * abs(a) for a, b in zip(values, values[1:]))


@pytest.mark.parametrize("make, words", [
    (lambda p: np.savez(p, X=np.ones((3, 2)), y=np.array([1.0, np.nan, 1.0])), ["array 'y' of --data", "NaN"]),
    (lambda p: np.savez(p, X=np.ones((3, 2)), y=np.ones(4)), ["axis 0", "length"]),
    (lambda p: np.savez(p, X=np.ones((3, 2))), ["no value", "'y'"]),
    (lambda p: np.savez(p, X=np.ones((3, 2)), y=np.ones(3), Z=np.ones(2)), ["'Z'", "does not declare"]),
    (lambda p: np.save(p, np.ones(3)), ["not an .npz"]),
    (lambda p: p.write_text("not a zip"), ["not a readable .npz"]),
    (lambda p: np.savez(p, X=np.ones((3, 2)), y=np.array(["a", "b", "c"])), ["array 'y' of --data", "numbers"]),
])
def test_bad_data_exits_2_with_a_clear_message(tmp_path, capsys, make, words):
    path = tmp_path / "bad.npz"
    make(path)
    if not path.exists():                         # np.save appends .npy
        os.rename(str(path) + ".npy", path)
    assert main(["solve", LOGISTIC, "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("convexcheck: error:") and "Traceback" not in err
    for word in words:
        assert word in err


def test_missing_file_and_unwritable_out(data, capsys):
    path, _, _ = data
    assert main(["solve", LOGISTIC, "--data", "/nonexistent/d.npz"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["solve", LOGISTIC, "--data", str(path), "--out", "/nonexistent/dir/w.npz"]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_out_is_not_truncated_when_the_solve_fails(data, tmp_path, capsys):
    path, _, _ = data
    out = tmp_path / "w.npz"
    np.savez(out, w=np.arange(4.0))
    bad = tmp_path / "bad.npz"
    np.savez(bad, X=np.ones((3, 4)), y=np.array([1.0, np.inf, 1.0]))
    assert main(["solve", LOGISTIC, "--data", str(bad), "--out", str(out)]) == 2
    assert np.load(out)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_errors_name_the_arrays_as_the_command_line_gave_them(tmp_path, capsys):
    """CLI words, not the API's data['y'] / x0['w']: the option and the file are named."""
    data, x0 = tmp_path / "d.npz", tmp_path / "x0.npz"
    np.savez(data, X=np.ones((4, 3)), y=np.array([1.0, 2.0, np.inf, 3.0]))
    np.savez(x0, w=np.zeros(3))
    assert main(["solve", "examples/least_squares.tc", "--data", str(data), "--x0", str(x0)]) == 2
    err = capsys.readouterr().err
    assert f"array 'y' of --data {data} has 1 entries that are NaN or infinite" in err and "data['y']" not in err
    np.savez(data, X=np.ones((4, 3)), y=np.ones(4))
    np.savez(x0, w=np.array([0.0, np.nan, 0.0]))
    assert main(["solve", "examples/least_squares.tc", "--data", str(data), "--x0", str(x0)]) == 2
    assert f"array 'w' of --x0 {x0} has 1 entries" in capsys.readouterr().err
