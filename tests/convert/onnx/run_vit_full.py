#!/usr/bin/env python3
"""vit_b_16 at full depth: generate (make_models.py), compare (run_models.py),
then delete the 330 MB model. usage: run_vit_full.py PYTHON SRCDIR ONNX2KITE KITERUN WORKDIR"""
import os
import shutil
import subprocess
import sys

py, src, onnx2kite, kiterun, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
try:
    subprocess.run([py, os.path.join(src, "make_models.py"), work, "vit_b_16"], check=True)
    rc = subprocess.run([py, os.path.join(src, "run_models.py"), onnx2kite, kiterun, work, os.path.join(work, "run"), "vit_b_16"]).returncode
finally:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(rc)
