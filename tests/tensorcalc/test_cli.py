"""The tensorcalc command: output, --check, --json and exit statuses (issue 2, item 9)."""
import json
import subprocess
import sys

import pytest

from tensorcalc.cli import main

QUADRATIC = "declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x derivative wrt x"


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tensorcalc", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_diff_prints_the_simplified_derivative(capsys):
    assert main(["diff", QUADRATIC]) == 0
    assert capsys.readouterr().out.strip() == "A' * x + A * x"
    assert main(["diff", QUADRATIC, "--notation", "einsum"]) == 0
    assert capsys.readouterr().out.strip() == "(x *(i,ij->j) A) + (x *(i,ji->j) A)"


def test_raw_prints_the_thesis_form(capsys):
    assert main(["diff", QUADRATIC, "--raw", "--notation", "einsum"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == "(delta(0) *(,i->i) (x *(i,ij->j) A)) + ((delta(0) *(,i->i) x) *(i,ji->j) A)"


def test_check_reports_the_largest_error(capsys):
    assert main(["diff", QUADRATIC, "--order", "2", "--check"]) == 0
    err = capsys.readouterr().err
    assert "max relative error" in err and "ok" in err


def test_json_output(capsys):
    assert main(["diff", QUADRATIC, "--check", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (part,) = report["derivatives"]
    assert part["wrt"] == "x" and report["order"] == 1 and part["check"]["passed"]
    assert part["check"]["max_error"] < 1e-6 and part["derivative"] == "A' * x + A * x"


def test_file_input_with_comments(tmp_path, capsys):
    path = tmp_path / "f.tc"
    path.write_text("# comment\ndeclare x 1\nexpression sin(x)  # here\nderivative wrt x\n")
    assert main(["diff", str(path), "--check"]) == 0
    assert capsys.readouterr().out.strip() == "diag(cos(x))"


def test_wrt_option_overrides_the_input(capsys):
    assert main(["diff", QUADRATIC, "--wrt", "A"]) == 0
    assert "A" not in capsys.readouterr().out.split("*")[0]


@pytest.mark.parametrize("args, message", [
    (["diff", "declare x 1 expression (x"], "line 1, column 24: unbalanced brackets"),
    (["diff", "missing.tc"], "missing.tc: no such file"),
    (["diff", "declare x 1 expression x"], "names no variable"),
    (["diff", QUADRATIC, "--wrt", "q"], "--wrt q: not declared"),
    (["diff", QUADRATIC, "--order", "-1"], "argument --order: must be a whole number from 0 to 32"),
])
def test_bad_input_exits_2_without_traceback(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_stdin_input():
    result = run("diff", "-", stdin="declare a 0 expression a*(,->)a derivative wrt a")
    assert result.returncode == 0 and result.stdout.strip() == "2 * a"


def test_help():
    result = run("diff", "--help")
    assert result.returncode == 0 and "--check" in result.stdout and "TEXT_OR_FILE" in result.stdout


def test_binary_file_is_rejected(tmp_path):
    path = tmp_path / "bad.tc"
    path.write_bytes(b"\xff\xfe\x00garbage")
    result = run("diff", str(path))
    assert result.returncode == 2 and "cannot read the file" in result.stderr
