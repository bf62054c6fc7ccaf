"""The statuses as an enum, their one message table, and the result type that prints them."""
from __future__ import annotations

import json

import pytest

from solvers.result import MESSAGES, Family, Result, Status, status_message


def test_statuses_are_the_integers_scipy_users_compare_with():
    assert [int(s) for s in Status] == list(range(7))
    assert Status.INFEASIBLE == 6 and Status(2) is Status.LINE_SEARCH_FAILED
    assert str(Status.CALLBACK) == "3" and f"{Status.CALLBACK}" == "3" and json.dumps(Status.NO_MINIMISER) == "5"
    assert repr(Result(status=Status.NOT_A_MINIMUM)).strip() == "status: 4"


def test_the_message_table_keeps_each_family_s_wording():
    assert status_message(Family.DESCENT, Status.CONVERGED, newton="") == "converged: max|g| <= gtol"
    assert status_message(Family.DESCENT, 0, newton=" and lambda^2/2 <= tol").endswith("and lambda^2/2 <= tol")
    assert status_message(Family.ALTERNATE, 1) == "stopped: the sweep limit was reached before convergence"
    assert status_message(Family.INTERIOR, Status.NO_MINIMISER).startswith("stopped: no minimiser: the iterates")
    assert MESSAGES[Family.DESCENT][Status.CALLBACK] == MESSAGES[Family.INTERIOR][Status.CALLBACK]


def test_a_status_without_a_fixed_text_is_a_key_error_not_a_blank():
    with pytest.raises(KeyError):
        status_message(Family.ALTERNATE, Status.CALLBACK)       # block Newton takes no callback
    with pytest.raises(KeyError):
        status_message(Family.DESCENT, Status.CONVERGED)        # {newton} must be filled in
