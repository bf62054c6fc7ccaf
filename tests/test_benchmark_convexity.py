"""benchmarks/convexity.py flags wrong verdicts and exits 1 on them (issue 13)."""
import importlib.util
import pathlib
import sys
from types import SimpleNamespace

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_convexity", ROOT / "benchmarks" / "convexity.py")
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench                  # dataclasses look their module up there
spec.loader.exec_module(bench)


def _outcome(convex, concave, truth):
    def side(status):
        return SimpleNamespace(status=status, proof=["a rule"], failures=[], witness=None)
    report = SimpleNamespace(verdict="convex", objective=SimpleNamespace(convex=side(convex), concave=side(concave)))
    return bench.Outcome(bench.Case("fake", "variable x\nminimize x^2", truth), report=report)


@pytest.mark.parametrize("statuses, truth, expected", [
    (("proven", "disproved"), (False, False), "**WRONG: proven convex**"),
    (("disproved", "disproved"), (True, False), "**WRONG: disproved convex**"),
    (("unknown", "proven"), (True, False), "**WRONG: proven concave**"),
    (("proven", "disproved"), (True, False), "ok"),
    (("unknown", "disproved"), (True, False), "open: convex"),
    (("proven", "disproved"), (None, None), "-"),
])
def test_check_against_truth(statuses, truth, expected):
    assert bench.check(_outcome(*statuses, truth)) == expected


def test_main_runs_and_saves_nothing_without_save(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "RESULTS.md")
    assert bench.main(["--filter", "quad_over_lin", "--samples", "3", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "| examples/quad_over_lin.tc | convex | proven | disproved | convex: " in out
    assert not (tmp_path / "RESULTS.md").exists()


def test_main_exits_1_on_a_wrong_proof(monkeypatch, capsys):
    wrong = _outcome("proven", "disproved", (False, False))
    monkeypatch.setattr(bench, "measure", lambda case, *args: wrong)
    assert bench.main(["--filter", "quad_over_lin"]) == 1
    assert "WRONG: proven convex" in capsys.readouterr().out


def test_save_names_the_commit(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "RESULTS.md")
    assert bench.main(["--filter", "sqrt_x2_plus_1", "--samples", "3", "--repeat", "0", "--save"]) == 0
    saved = (tmp_path / "RESULTS.md").read_text()
    assert saved.startswith("# convexcheck: verdicts") and "Commit " in saved
    assert "| examples/sqrt_x2_plus_1.tc | convex | proven |" in saved
