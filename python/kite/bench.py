"""python -m kite.bench [benchkite arguments]: benchkite's table from Python.

Runs the benchkite compiled into the module with the same command line:
    python -m kite.bench [loop count] [num threads] [powersave] [gpu device]
                         [cooling down] [param=FILE|DIR]... [shape=[w,h,c]] ...
e.g. python -m kite.bench 8 2 0 -1 0 param=squeezenet.param
"""
import sys

from . import _kite


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    sys.stdout.flush()
    return _kite._benchkite([str(a) for a in args])


if __name__ == "__main__":
    sys.exit(main())
