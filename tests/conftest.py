"""Shared test settings: hypothesis profiles ('default' for CI, 'slow' for -m slow runs)."""
import atexit
import os
import pathlib
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

DATA = pathlib.Path(__file__).parent / "data"
# the disk cache of compiled code and verdicts (tensorcalc/cache.py) goes to a folder of
# this run, not the user's ~/.cache/convexcheck (set the variable to share one on purpose)
if "CONVEXCHECK_CACHE_DIR" not in os.environ:
    os.environ["CONVEXCHECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="convexcheck-test-cache-")
    atexit.register(shutil.rmtree, os.environ["CONVEXCHECK_CACHE_DIR"], ignore_errors=True)

settings.register_profile("default", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("slow", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
SCALE = 20 if os.environ.get("HYPOTHESIS_PROFILE") == "slow" else 1


def examples(n: int) -> int:
    """n examples in the default profile, 20 n in the slow one."""
    return n * SCALE


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    """A private, empty disk-cache folder for one test, the in-process caches forgotten."""
    from cache_tools import forget

    from tensorcalc.store import cache
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "cc"))
    monkeypatch.delenv(cache.ENV_SWITCH, raising=False)
    forget()
    yield tmp_path / "cc"
    forget()


def cupy_or_skip():
    """CuPy with a usable CUDA device, else the test is skipped."""
    import pytest
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception as exc:  # noqa: BLE001 - no driver
        pytest.skip(f"no usable CUDA device: {exc}")
    return cupy


@pytest.fixture(autouse=True)
def _no_kept_qps():
    """Each test starts without QPs kept by an earlier one (`solvers.constrained.kept`): a
    test that forces one path must not meet another test's kept algebra for equal data."""
    from solvers.constrained import kept
    kept.clear()
    yield
