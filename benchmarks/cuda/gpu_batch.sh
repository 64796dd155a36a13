#!/bin/bash
# One batch on a GPU machine (the device tool): the e2e suite and the cuda tests
# on OCLPY_DEVICE=cuda, then the benchmarks against NVIDIA's OpenCL. Logs and
# JSON go to $OUT. Expects carried wheels in .whl (pyopencl and its needs).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 OCLPY_CACHE_DIR=/tmp/oclpy-cache
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/env.log 2>&1
python3 -c "import oclpy; print([d for p in oclpy.get_platforms() for d in p.get_devices()])" >> $OUT/env.log 2>&1
python3 -c "import pyopencl as c; print([(p.name, p.version, p.get_devices()) for p in c.get_platforms()])" >> $OUT/env.log 2>&1
OCLPY_DEVICE=cuda timeout ${TEST_TIMEOUT:-240} python3 -m pytest -q -p no:cacheprovider -rs \
    -p benchmarks.cuda.spec_plugin -n 8 tests/e2e tests/spec tests/runtime/test_cuda_device.py ${EXTRA_TESTS} 2>&1 | tee $OUT/tests.log | tail -40
timeout ${BENCH_TIMEOUT:-240} python3 -m benchmarks.cuda --out $OUT/bench.json --dump-ptx $OUT/ptx.json ${BENCH_ARGS} 2>&1 | tee $OUT/bench.log | tail -40
# the e2e suite again with synchronous launches (OCLPY_CUDA_ASYNC=0; asynchronous is the default)
OCLPY_DEVICE=cuda OCLPY_CUDA_ASYNC=0 timeout 120 python3 -m pytest -q -p no:cacheprovider \
    tests/e2e tests/runtime/test_cuda_device.py 2>&1 | tee $OUT/tests_async.log | tail -3
