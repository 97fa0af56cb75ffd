import numpy as np
import pytest

import kite

SEED = 7


@pytest.mark.parametrize("shape", [(13,), (5, 7), (3, 4, 4), (3, 5, 7), (1, 5, 7), (2, 3, 4, 4), (2, 3, 5, 3)])
def test_numpy_round_trip(shape):
    rng = np.random.default_rng(SEED)
    a = rng.standard_normal(shape).astype(np.float32)
    m = kite.Mat(a)
    assert m.shape == shape
    assert m.dims == len(shape)
    b = np.asarray(m)
    assert b.shape == shape and b.dtype == np.float32
    np.testing.assert_array_equal(b, a, err_msg="seed %d shape %s" % (SEED, shape))
    np.testing.assert_array_equal(m.numpy(), a)


def test_no_copy_when_layout_allows():
    # 4x4 float planes are 64 bytes (a multiple of 16): shared
    a = np.zeros((3, 4, 4), np.float32)
    m = kite.Mat(a)
    assert m.shares_memory_with_numpy()
    a[1, 2, 3] = 5.0
    assert np.asarray(m)[1, 2, 3] == 5.0
    # Mat -> numpy is always a view
    v = np.asarray(m)
    m.fill(2.0)
    assert float(v[0, 0, 0]) == 2.0
    assert np.shares_memory(v, a)


@pytest.mark.parametrize("arr", [
    np.zeros((3, 5, 7), np.float32),           # 140-byte planes: kite pads channels to 16 bytes
    np.zeros((3, 4, 4), np.float64),           # other dtype: converted
    np.zeros((4, 4, 3), np.float32).transpose(2, 0, 1),  # not C-contiguous
])
def test_copy_otherwise(arr):
    m = kite.Mat(arr)
    assert not m.shares_memory_with_numpy()
    arr[...] = 1
    assert float(np.asarray(m).max()) == 0.0


def test_padded_channels_view():
    a = np.arange(3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)
    m = kite.Mat(a)
    v = np.asarray(m)
    assert m.cstep > 35  # padded
    assert v.strides[0] == m.cstep * 4
    np.testing.assert_array_equal(v, a)


def test_zero_mat_constructor():
    m = kite.Mat(4, 3, 0, 2)
    assert m.shape == (2, 3, 4) and float(np.asarray(m).sum()) == 0.0
    assert kite.Mat(5).shape == (5,)


def test_pixels_round_trip():
    rng = np.random.default_rng(SEED)
    img = rng.integers(0, 256, size=(6, 9, 3), dtype=np.uint8)
    m = kite.Mat.from_pixels(img, kite.Mat.PixelType.RGB)
    assert m.shape == (3, 6, 9)
    np.testing.assert_array_equal(np.asarray(m), img.transpose(2, 0, 1).astype(np.float32))
    np.testing.assert_array_equal(m.to_pixels(kite.Mat.PixelType.RGB), img)
    bgr = kite.Mat.from_pixels(img, kite.Mat.PixelType.RGB2BGR)
    np.testing.assert_array_equal(np.asarray(bgr)[0], img[:, :, 2].astype(np.float32))
    r = kite.Mat.from_pixels_resize(img, kite.Mat.PixelType.RGB, 18, 12)
    assert r.shape == (3, 12, 18)
    back = r.to_pixels_resize(kite.Mat.PixelType.RGB, 9, 6)
    assert back.shape == (6, 9, 3)
    gray = kite.Mat.from_pixels(img[:, :, 0].copy(), kite.Mat.PixelType.GRAY)
    assert gray.shape == (1, 6, 9)


def test_substract_mean_normalize():
    img = np.full((4, 4, 3), 100, np.uint8)
    m = kite.Mat.from_pixels(img, kite.Mat.PixelType.RGB)
    m.substract_mean_normalize([50.0, 60.0, 70.0], [0.5, 0.25, 2.0])
    v = np.asarray(m)
    np.testing.assert_allclose(v[:, 0, 0], [25.0, 10.0, 60.0])
    with pytest.raises(ValueError, match="one mean"):
        m.substract_mean_normalize([1.0], None)


def test_pixel_errors():
    with pytest.raises(ValueError, match="H x W x 3"):
        kite.Mat.from_pixels(np.zeros((4, 4, 4), np.uint8), kite.Mat.PixelType.RGB)
    with pytest.raises(TypeError, match="uint8"):
        kite.Mat.from_pixels(np.zeros((4, 4, 3), np.float32), kite.Mat.PixelType.RGB)
    with pytest.raises(ValueError, match="pixel type"):
        kite.Mat.from_pixels(np.zeros((4, 4, 3), np.uint8), 77)
