"""Shared fixtures: squeezenet (../shared/models/ncnn) with seeded random
weights and its reference output, both written by kiterun.

Finds the module via PYTHONPATH (ctest sets build/python) or an installed
kite; kiterun via $KITERUN, else build/tools/kiterun of this checkout."""
import os
import shutil
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("KITE_SHARED_DIR") or os.path.join(os.path.dirname(REPO), "shared")
SEED = 20261126


def find_kiterun():
    cands = [os.environ.get("KITERUN", ""), os.path.join(REPO, "build", "tools", "kiterun"), shutil.which("kiterun") or ""]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


@pytest.fixture(scope="session")
def squeezenet(tmp_path_factory):
    """(param path, bin path, input array (3,227,227), kiterun's output (the Softmax blob "output"))"""
    param = os.path.join(SHARED, "models", "ncnn", "squeezenet.param")
    if not os.path.exists(param):
        pytest.skip("no %s (the shared/ folder)" % param)
    kiterun = find_kiterun()
    if kiterun is None:
        pytest.skip("no kiterun (set KITERUN or build build/tools/kiterun)")
    d = tmp_path_factory.mktemp("squeezenet")
    rng = np.random.default_rng(SEED)
    x = rng.uniform(0.0, 255.0, size=(3, 227, 227)).astype(np.float32)
    np.save(d / "in.npy", x)
    binp = str(d / "squeezenet.bin")
    subprocess.run([kiterun, param, "random", "seed=%d" % SEED, "writebin=" + binp, "input=data:%s" % (d / "in.npy"),
                    "output=output", "threads=1", "save=%s" % d], check=True, stdout=subprocess.DEVNULL)
    ref = np.load(d / "output.npy")
    return param, binp, x, ref
