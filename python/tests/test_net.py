import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import kite

from conftest import SEED


def run_net(net, x, threads=1):
    with net.create_extractor() as ex:
        ex.set_num_threads(threads)
        ex.input("data", x)
        return np.array(ex.extract("output"))


def load(param, binp, threads=1):
    net = kite.Net()
    net.opt.num_threads = threads
    net.load_param(param)
    net.load_model(binp)
    return net


def test_squeezenet_equals_kiterun(squeezenet):
    param, binp, x, ref = squeezenet
    net = load(param, binp)
    out = run_net(net, x)
    assert out.shape == (1000,), out.shape
    assert ref.reshape(-1).shape == (1000,)
    # same library, same options, one thread: the same floats (seed %d)
    np.testing.assert_array_equal(out, ref.reshape(-1), err_msg="seed %d" % SEED)
    assert abs(float(out.sum()) - 1.0) < 1e-4  # softmax output


def test_load_from_bytes(squeezenet):
    param, binp, x, ref = squeezenet
    net = kite.Net()
    net.opt.num_threads = 1
    net.load_param(open(param, "rb").read())
    net.load_model(open(binp, "rb").read())
    np.testing.assert_array_equal(run_net(net, x), ref.reshape(-1))


def test_index_access_and_names(squeezenet):
    param, binp, x, ref = squeezenet
    net = load(param, binp)
    assert net.input_names() == ["data"]
    assert net.output_names() == ["output"]
    names = net.blob_names()
    with net.create_extractor() as ex:
        ex.input(names.index("data"), kite.Mat(x))
        out = np.array(ex.extract(names.index("output")))
    np.testing.assert_array_equal(out, ref.reshape(-1))


def test_extract_from_threads(squeezenet):
    param, binp, x, ref = squeezenet
    net = load(param, binp)
    rng = np.random.default_rng(SEED + 1)
    inputs = [rng.uniform(0, 255, size=x.shape).astype(np.float32) for _ in range(4)]
    expected = [run_net(net, a) for a in inputs]
    results = [None] * 8
    errors = []

    def work(i):
        try:
            for _ in range(2):
                results[i] = run_net(net, inputs[i % 4])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    for i in range(8):
        np.testing.assert_array_equal(results[i], expected[i % 4], err_msg="thread %d" % i)


def test_option_fields():
    net = kite.Net()
    net.opt.num_threads = 3
    net.opt.use_packing_layout = False
    assert net.opt.num_threads == 3 and net.opt.use_packing_layout is False
    o = kite.Option()
    o.use_vulkan_compute = True
    o.vulkan_device = 1
    net.opt = o
    assert net.opt.use_vulkan_compute and net.opt.vulkan_device == 1
    # Option::memory_limit: the machine's memory by default; a model declaring more fails to load
    assert kite.Option().memory_limit > 0
    small = kite.Net()
    small.opt.memory_limit = 1 << 20
    with pytest.raises(RuntimeError, match="memory limit"):
        small.load_param(b"7767517\n1 1\nInput data 0 1 data 0=1000 1=1000 2=3\n")
    assert isinstance(kite.vulkan_devices(), list) and isinstance(kite.opencl_devices(), list)
    if not kite.HAS_VULKAN:
        assert kite.vulkan_devices() == []


def test_errors(tmp_path, squeezenet):
    param, binp, x, ref = squeezenet
    net = kite.Net()
    missing = str(tmp_path / "nope.param")
    with pytest.raises(RuntimeError, match="nope.param"):
        net.load_param(missing)
    with pytest.raises(RuntimeError):
        net.load_param(b"this is not a param file")
    with pytest.raises(RuntimeError, match="load_param and load_model first"):
        net.create_extractor()
    net = load(param, binp)
    ex = net.create_extractor()
    with pytest.raises(KeyError, match="no blob named 'nosuch'"):
        ex.extract("nosuch")
    with pytest.raises(IndexError):
        ex.extract(100000)
    with pytest.raises(ValueError, match="dimensions"):
        ex.input("data", np.zeros((1, 1, 1, 1, 1), np.float32))
    with pytest.raises(TypeError):
        ex.input("data", "not an array")
    # wrong input shape: kite reports it, Python gets an exception (no crash)
    ex.input("data", np.zeros((5, 7, 7), np.float32))
    with pytest.raises(RuntimeError, match="extract"):
        ex.extract("output")
    # truncated weights
    net2 = kite.Net()
    net2.load_param(param)
    with pytest.raises(RuntimeError):
        net2.load_model(open(binp, "rb").read()[:1000])


def test_bench_prints_table(squeezenet):
    param = squeezenet[0]
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "kite.bench", "1", "1", "0", "-1", "0", "param=" + param],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "loop_count = 1" in r.stdout
    assert "squeezenet  min = " in r.stdout, r.stdout


@pytest.mark.parametrize("backend", ["vulkan", "opencl"])
def test_gpu_backend_matches_cpu(squeezenet, backend):
    devices = kite.vulkan_devices() if backend == "vulkan" else kite.opencl_devices()
    if not devices:
        pytest.skip("no %s device (or the module was built without it)" % backend)
    param, binp, x, ref = squeezenet
    net = kite.Net()
    if backend == "vulkan":
        net.opt.use_vulkan_compute = True
        net.opt.vulkan_device = 0
    else:
        net.opt.use_opencl = True
        net.opt.opencl_device = 0
    net.load_param(param)
    net.load_model(binp)
    with net.create_extractor() as ex:
        ex.input("data", x)
        out = np.array(ex.extract("output"))
        want = kite.BACKEND_VULKAN if backend == "vulkan" else kite.BACKEND_OPENCL
        assert want in ex.layer_backends(), "no layer ran on %s" % backend
    # fp32 on the device, other summation orders: close, not equal
    np.testing.assert_allclose(out, ref.reshape(-1), rtol=1e-3, atol=1e-6, err_msg="%s on %s, seed %d" % (backend, devices[0], SEED))


def test_choose_device(tmp_path, squeezenet):
    """device=auto: the fastest timed candidate, cached, applied to an Option."""
    param, binp, x, ref = squeezenet
    opt = kite.Option()
    opt.num_threads = 1
    c = kite.choose_device(param, binp, opt, inputs={"data": x}, cache_dir=str(tmp_path))
    assert not c["from_cache"] and c["candidates"][0]["backend"] == 0
    ran = [d for d in c["candidates"] if d["status"] == 0]
    best = min(ran, key=lambda d: d["ms"])
    assert (c["backend"], c["device"]) == (best["backend"], best["device"]), c["summary"]
    again = kite.choose_device(param, binp, opt, inputs={"data": x}, cache_dir=str(tmp_path))
    assert again["from_cache"] and (again["backend"], again["device"]) == (c["backend"], c["device"])
    net = kite.Net()
    net.opt = opt
    kite.apply_device_choice(c, net.opt)
    assert net.opt.use_vulkan_compute == (c["backend"] == kite.BACKEND_VULKAN)
    assert net.opt.use_opencl == (c["backend"] == kite.BACKEND_OPENCL)
    net.load_param(param)
    net.load_model(binp)
    with net.create_extractor() as ex:
        ex.input("data", x)
        out = np.asarray(ex.extract("output"))
    assert np.abs(out.reshape(-1) - ref.reshape(-1)).max() <= 1e-3 * max(1e-6, float(ref.max() - ref.min())) + 1e-6
    with pytest.raises(RuntimeError, match="choose_device"):
        kite.choose_device(str(tmp_path / "missing.param"), cache_dir="off")
